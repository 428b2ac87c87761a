//! Hash-consed expression DAG.
