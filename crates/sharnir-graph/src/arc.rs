//! A directed joint between two bodies.

/// One joint of the mechanism seen as a graph arc.
///
/// The orientation matters: it fixes the sign of the joint's entries in the incidence
/// and path matrices and, later, which body the joint coordinates are measured from.
/// `from` is `i⁺(a)`, the body the arc leaves (normally the parent), and `to` is
/// `i⁻(a)`, the body it enters (normally the child).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arc {
    /// Body the arc leaves, `i⁺(a)`: the parent side for a joint given parent first.
    pub from: usize,
    /// Body the arc enters, `i⁻(a)`: the child side for a joint given parent first.
    pub to: usize,
}

impl Arc {
    /// Builds an arc from `from` (`i⁺`) to `to` (`i⁻`); a shorthand that keeps
    /// tables of textbook graphs readable.
    pub fn new(from: usize, to: usize) -> Self {
        Self { from, to }
    }

    /// The endpoint that is not `body`, or `None` if `body` is not an endpoint; used
    /// when walking the graph without caring about orientation.
    pub fn other_end(&self, body: usize) -> Option<usize> {
        if self.from == body {
            Some(self.to)
        } else if self.to == body {
            Some(self.from)
        } else {
            None
        }
    }
}
