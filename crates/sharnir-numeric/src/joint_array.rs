//! Fixed-capacity arrays with one entry per velocity coordinate of a joint.
//!
//! A joint has at most six degrees of freedom, so the columns of its motion
//! subspace and its share of a joint-space vector (`Sᵀ f`) fit in arrays of
//! six; keeping them on the stack means the recursions that handle every
//! joint kind alike (RNEA, CRBA) allocate nothing per body, which matters
//! because they are the baseline the generated code is benchmarked against.

use std::ops::Deref;

/// The largest number of velocity coordinates of one joint (a free joint).
pub(crate) const MAX_JOINT_DOF: usize = 6;

/// Up to [`MAX_JOINT_DOF`] values, one per velocity coordinate of a joint;
/// dereferences to the slice of the used ones. Built with
/// [`JointArray::from_fn`] or by collecting an iterator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JointArray<T> {
    /// The values; entries from `len` on are padding.
    items: [T; MAX_JOINT_DOF],
    /// How many entries are used, at most [`MAX_JOINT_DOF`].
    len: usize,
}

impl<T: Copy + Default> JointArray<T> {
    /// `[f(0), …, f(len − 1)]`; a `len` beyond [`MAX_JOINT_DOF`] is cut to
    /// it.
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> T) -> JointArray<T> {
        (0..len).map(&mut f).collect()
    }
}

impl<T: Copy + Default> FromIterator<T> for JointArray<T> {
    /// The first [`MAX_JOINT_DOF`] items; the rest are dropped.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> JointArray<T> {
        let mut items = [T::default(); MAX_JOINT_DOF];
        let mut len = 0;
        for (item, value) in items.iter_mut().zip(iter) {
            *item = value;
            len += 1;
        }
        JointArray { items, len }
    }
}

impl<T> Deref for JointArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // `len ≤ MAX_JOINT_DOF` by construction.
        &self.items[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_len_values_and_caps_the_length() {
        let short = JointArray::from_fn(3, |k| k as f64 + 0.5);
        assert_eq!(&*short, &[0.5, 1.5, 2.5]);
        let long: JointArray<usize> = (10..20).collect();
        assert_eq!(&*long, &[10, 11, 12, 13, 14, 15]);
    }
}
