//! A small dense integer matrix, enough to hold and compare `S`, `T` and their products.

use std::fmt;

/// A dense row-major matrix of small integers.
///
/// The textbook describes the structure of a mechanism by matrices whose entries are
/// `-1`, `0` and `+1` (the incidence matrix `S`, the path matrix `T`). Keeping them as
/// plain integer matrices lets the tests compare them with the printed ones and check
/// identities such as `T·S = E` exactly, without any floating point.
#[derive(Clone, PartialEq, Eq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    entries: Vec<i32>,
}

impl Matrix {
    /// The `rows × cols` zero matrix, the starting point of every matrix built entry by
    /// entry.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            entries: vec![0; rows.saturating_mul(cols)],
        }
    }

    /// The `n × n` identity `E`, the expected value of `T·S`.
    pub fn identity(n: usize) -> Self {
        let mut identity = Self::zeros(n, n);
        for i in 0..n {
            identity.set(i, i, 1);
        }
        identity
    }

    /// A matrix with the given rows; the const width makes ragged input impossible, so
    /// matrices copied from the book can be written as array literals.
    pub fn from_rows<const C: usize>(rows: &[[i32; C]]) -> Self {
        Self {
            rows: rows.len(),
            cols: C,
            entries: rows.iter().flatten().copied().collect(),
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry `(row, col)` (0-based), or `None` outside the matrix, so that callers never
    /// index out of bounds.
    pub fn get(&self, row: usize, col: usize) -> Option<i32> {
        self.offset(row, col)
            .and_then(|i| self.entries.get(i).copied())
    }

    /// Sets entry `(row, col)` (0-based); writes outside the matrix are ignored, which
    /// only the builders in this module tree can do, and only on a logic error.
    pub(super) fn set(&mut self, row: usize, col: usize, value: i32) {
        debug_assert!(
            row < self.rows && col < self.cols,
            "entry ({row}, {col}) is outside"
        );
        if let Some(entry) = self.offset(row, col).and_then(|i| self.entries.get_mut(i)) {
            *entry = value;
        }
    }

    /// The product `self · other`, or `None` if the inner dimensions differ. Entries
    /// saturate instead of overflowing, which cannot happen for `±1` matrices of any
    /// realistic size anyway.
    pub fn mul(&self, other: &Matrix) -> Option<Matrix> {
        if self.cols != other.rows {
            return None;
        }
        let mut product = Matrix::zeros(self.rows, other.cols);
        for i in 0..self.rows {
            for j in 0..other.cols {
                let sum = (0..self.cols).fold(0i32, |sum, k| {
                    let a = self.get(i, k).unwrap_or(0);
                    let b = other.get(k, j).unwrap_or(0);
                    sum.saturating_add(a.saturating_mul(b))
                });
                product.set(i, j, sum);
            }
        }
        Some(product)
    }

    fn offset(&self, row: usize, col: usize) -> Option<usize> {
        (row < self.rows && col < self.cols).then(|| row * self.cols + col)
    }
}

/// Prints one row per line, so that a failed comparison with a textbook matrix shows
/// which entries differ.
impl fmt::Debug for Matrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Matrix {}x{} [", self.rows, self.cols)?;
        for row in self.entries.chunks(self.cols.max(1)).take(self.rows) {
            writeln!(f, "  {row:?}")?;
        }
        write!(f, "]")
    }
}
