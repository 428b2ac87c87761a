//! Mechanism graph: spanning tree, regular numbering, incidence and path matrices.
