//! Dense LU factorisations with partial pivoting, real and complex, for
//! the iteration matrices of the implicit integrator.
//!
//! Matrices are row-major `n × n` slices; a complex matrix is two real ones
//! (real and imaginary parts), as in Hairer's `DECC`/`SOLC`.

// Index loops over row-major storage read like the textbook algorithm.
#![allow(clippy::needless_range_loop)]

/// A real LU factorisation `P A = L U`, stored in place.
#[derive(Clone, Debug, Default)]
pub(crate) struct RealLu {
    n: usize,
    lu: Vec<f64>,
    pivots: Vec<usize>,
}

impl RealLu {
    /// Factorises `a` (`n × n`, row-major); `None` when a pivot is zero
    /// (the matrix is singular to working precision).
    pub fn factor(n: usize, a: &[f64]) -> Option<Self> {
        let mut lu = a.to_vec();
        let mut pivots = vec![0; n];
        for k in 0..n {
            let (p, largest) =
                (k..n)
                    .map(|i| (i, lu[i * n + k].abs()))
                    .fold(
                        (k, -1.0),
                        |best, cur| if cur.1 > best.1 { cur } else { best },
                    );
            if largest == 0.0 || !largest.is_finite() {
                return None;
            }
            pivots[k] = p;
            if p != k {
                for j in 0..n {
                    lu.swap(k * n + j, p * n + j);
                }
            }
            let pivot = lu[k * n + k];
            for i in k + 1..n {
                let factor = lu[i * n + k] / pivot;
                lu[i * n + k] = factor;
                if factor != 0.0 {
                    for j in k + 1..n {
                        lu[i * n + j] -= factor * lu[k * n + j];
                    }
                }
            }
        }
        Some(RealLu { n, lu, pivots })
    }

    /// Solves `A x = b` in place.
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            b.swap(k, self.pivots[k]);
        }
        for i in 0..n {
            let mut sum = b[i];
            for j in 0..i {
                sum -= self.lu[i * n + j] * b[j];
            }
            b[i] = sum;
        }
        for i in (0..n).rev() {
            let mut sum = b[i];
            for j in i + 1..n {
                sum -= self.lu[i * n + j] * b[j];
            }
            b[i] = sum / self.lu[i * n + i];
        }
    }
}

/// A complex LU factorisation with partial pivoting, real and imaginary
/// parts kept apart.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComplexLu {
    n: usize,
    re: Vec<f64>,
    im: Vec<f64>,
    pivots: Vec<usize>,
}

/// `(a + ib)(c + id)`.
fn mul(a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    (a * c - b * d, a * d + b * c)
}

/// `(a + ib) / (c + id)`.
fn div(a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    let denominator = c * c + d * d;
    ((a * c + b * d) / denominator, (b * c - a * d) / denominator)
}

impl ComplexLu {
    /// Factorises `re + i·im`; `None` when singular to working precision.
    pub fn factor(n: usize, re: &[f64], im: &[f64]) -> Option<Self> {
        let (mut re, mut im) = (re.to_vec(), im.to_vec());
        let mut pivots = vec![0; n];
        for k in 0..n {
            let (p, largest) = (k..n)
                .map(|i| (i, re[i * n + k].abs() + im[i * n + k].abs()))
                .fold(
                    (k, -1.0),
                    |best, cur| if cur.1 > best.1 { cur } else { best },
                );
            if largest == 0.0 || !largest.is_finite() {
                return None;
            }
            pivots[k] = p;
            if p != k {
                for j in 0..n {
                    re.swap(k * n + j, p * n + j);
                    im.swap(k * n + j, p * n + j);
                }
            }
            let (pr, pi) = (re[k * n + k], im[k * n + k]);
            for i in k + 1..n {
                let (fr, fi) = div(re[i * n + k], im[i * n + k], pr, pi);
                re[i * n + k] = fr;
                im[i * n + k] = fi;
                if fr != 0.0 || fi != 0.0 {
                    for j in k + 1..n {
                        let (mr, mi) = mul(fr, fi, re[k * n + j], im[k * n + j]);
                        re[i * n + j] -= mr;
                        im[i * n + j] -= mi;
                    }
                }
            }
        }
        Some(ComplexLu { n, re, im, pivots })
    }

    /// Solves `A (x + iy) = b + ic` in place (`x` in `br`, `y` in `bi`).
    pub fn solve(&self, br: &mut [f64], bi: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            br.swap(k, self.pivots[k]);
            bi.swap(k, self.pivots[k]);
        }
        for i in 0..n {
            let (mut sr, mut si) = (br[i], bi[i]);
            for j in 0..i {
                let (mr, mi) = mul(self.re[i * n + j], self.im[i * n + j], br[j], bi[j]);
                sr -= mr;
                si -= mi;
            }
            br[i] = sr;
            bi[i] = si;
        }
        for i in (0..n).rev() {
            let (mut sr, mut si) = (br[i], bi[i]);
            for j in i + 1..n {
                let (mr, mi) = mul(self.re[i * n + j], self.im[i * n + j], br[j], bi[j]);
                sr -= mr;
                si -= mi;
            }
            let (xr, xi) = div(sr, si, self.re[i * n + i], self.im[i * n + i]);
            br[i] = xr;
            bi[i] = xi;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_and_complex_solves_reproduce_the_right_hand_side() {
        let a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let lu = RealLu::factor(3, &a).expect("regular");
        let mut b = [3.0, 2.0, 4.0];
        lu.solve(&mut b);
        // x = (1, 1, 1)
        for x in b {
            assert!((x - 1.0).abs() < 1e-14, "{b:?}");
        }
        assert!(RealLu::factor(2, &[1.0, 2.0, 2.0, 4.0]).is_none());

        let im = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let lu = ComplexLu::factor(3, &a, &im).expect("regular");
        // (A + iI)(1 + i, 1, −i) computed by hand:
        let (x_re, x_im) = ([1.0, 1.0, 0.0], [1.0, 0.0, -1.0]);
        let mut br = [0.0; 3];
        let mut bi = [0.0; 3];
        for i in 0..3 {
            for j in 0..3 {
                let (mr, mi) = mul(a[i * 3 + j], im[i * 3 + j], x_re[j], x_im[j]);
                br[i] += mr;
                bi[i] += mi;
            }
        }
        lu.solve(&mut br, &mut bi);
        for i in 0..3 {
            assert!((br[i] - x_re[i]).abs() < 1e-14 && (bi[i] - x_im[i]).abs() < 1e-14);
        }
    }
}
