//! A rigid placement of one frame in another, for the scene the animation
//! page draws: composed along a chain of frames and written as the
//! column-major 4 × 4 matrix three.js reads.

/// Row-major rotation and translation: `p_host = translation + rotation · p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frame {
    pub(crate) rotation: [[f64; 3]; 3],
    pub(crate) translation: [f64; 3],
}

impl Frame {
    /// The frame itself.
    pub(crate) const IDENTITY: Frame = Frame {
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        translation: [0.0; 3],
    };

    /// This frame, then `inner` placed in it.
    pub(crate) fn then(&self, inner: &Frame) -> Frame {
        let r = &self.rotation;
        Frame {
            rotation: std::array::from_fn(|i| {
                std::array::from_fn(|j| (0..3).map(|k| r[i][k] * inner.rotation[k][j]).sum())
            }),
            translation: std::array::from_fn(|i| {
                self.translation[i] + (0..3).map(|k| r[i][k] * inner.translation[k]).sum::<f64>()
            }),
        }
    }

    /// The host's frame seen from this one.
    pub(crate) fn inverse(&self) -> Frame {
        let rt: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| self.rotation[j][i]));
        Frame {
            rotation: rt,
            translation: std::array::from_fn(|i| {
                -(0..3).map(|k| rt[i][k] * self.translation[k]).sum::<f64>()
            }),
        }
    }

    /// Column-major 4 × 4, as three.js's `Matrix4.fromArray` reads it.
    pub(crate) fn matrix(&self) -> Vec<f64> {
        let (r, t) = (&self.rotation, &self.translation);
        vec![
            r[0][0], r[1][0], r[2][0], 0.0, r[0][1], r[1][1], r[2][1], 0.0, r[0][2], r[1][2],
            r[2][2], 0.0, t[0], t[1], t[2], 1.0,
        ]
    }
}
