//! Telegin's six-degree-of-freedom manipulator (Fig. 3 of A.I. Telegin,
//! "Формализм выписывания уравнения динамики манипуляторов", Вестник ЮУрГУ,
//! сер. «Компьютерные технологии, управление, радиоэлектроника», 2021, т. 21,
//! № 4, с. 52–68, DOI 10.14529/ctcr210405).
//!
//! The paper gives two independent computations of the driving forces of the
//! same mechanism: hand-derived closed forms (Listing 2) and a recursive
//! Newton–Euler routine, СФСТОВ (Listing 1). Both are reimplemented here so that
//! generated code can be checked against a published, hand-derived answer and
//! not only against another recursive algorithm. The two are checked against
//! each other in the unit tests below; agreement of two derivations that share
//! no code is what gives them oracle status.
//!
//! Mechanism (y vertical, gravity (0, −g, 0)): q1, q2, q3 revolute about the
//! vertical y axis, q4 prismatic along −y, q5 revolute about z of body 4, q6
//! revolute about y of body 5. Body k's frame is joint k's frame moved by q_k.
//!
//! # Corrections to the OCR text
//!
//! The seed is an OCR of the PDF; the JavaScript of both listings is damaged.
//! Every reading below was checked numerically: with all of them applied,
//! [`closed_form`] and [`listing1_routine`] agree to ~2e-14 relative at the
//! Listing-2 state, at random states, and at random parameter values with
//! L1 = L2, while the two computations were reconstructed independently from
//! the two listings. (Misreading any one item would break that agreement or the
//! symmetry of the mass matrix checked in the tests.)
//!
//! Listing 2 (closed forms):
//! * `Ы2=1су2+т02*А2*Л2+т3:|Ъ2:,Ъ2` is `Id2=Icy2+m02*A2*A2+m3*L2*L2` (the
//!   inertia of subsystem 2 about joint 2 with bodies 3..6 lumped at pole 3;
//!   compare the readable `Id1=Icy1+m01*A1*A1+m2*L1*L1`).
//! * `1x56=1x5+1x6` is `Ix56=Ix5+Ix6`; `1у56=1су5+1су6` is `Iy56=Icy5+Icy6`.
//! * The first `^5=1x5+1x6` has an unreadable name; its right-hand side is the
//!   same as `Ix56` and no formula uses another `…5` name, so it is dropped.
//! * `с2=МаШ.^№)`, `с3=МаШ.^([3)`, `^=№.^.^([12)` are `c2=Math.cos(q2)`,
//!   `c3=Math.cos(q3)`, `c12=Math.cos(q12)`; `q2з` is `q23`.
//! * In M1, `s23*qt13*qt1з` is `s23*qt13*qt13`.
//! * `Id=D6+Ix6` and `If=D6+Ix6` are legible and both equal Icy6; `Ie` is
//!   legible as `Ix56-Iy56-D5-D6`, which equals −2·D. Kept as written.
//! * Not an OCR error but a stated restriction ("если l1 = l2 = l"): M3 and M5
//!   use `La=L1*a` for both the `c23/s23` (link-1) and the `c3/s3` (link-2)
//!   terms. With L1 ≠ L2 the closed forms are wrong (measured: 0.65 N·m in
//!   M1..M3 at L2 = 0.8). Splitting `La` into `L1*a` on the `…23` terms and
//!   `L2*a` on the `…3` terms makes them exact for any L1, L2 (verified against
//!   Listing 1 at random parameters); see [`closed_form_unequal_links`].
//!
//! Listing 1 (СФСТОВ); the OCR reads `i` as `1`/`Щ`/`И` and `*` as `=` or `Ю`:
//! * `СФСГОВ(…,ОУ^)` is `СФСТОВ(КП,НКОКП,КБПТ,МТ,ЦМ,ТИТ,ОК,ОС,ОУ,g)`;
//!   `miength-l` is `МТ.length-1`.
//! * `ЩКЩ] === 0)` is `if(КП[i] === 0)`; `НКОКЩЩ]` is `НКОКП[i][1]`;
//!   `МаШ.^(ОКЩ)` / `МаШ^ш(ОКЩ)` are `Math.cos(ОК[i])` / `Math.sin(ОК[i])`;
//!   `МПТЩ = трансп(МП[1])` is `МПТ[i] = трансп(МП[i])`.
//! * `ЧВ(КЩ0]=ЮС[0], …)` is `ЧВ(КП[0]*ОС[0], …)` (likewise `ОУ`).
//! * Inside both loops every `[1]` is `[i]` and `[1-1]` is `[i-1]`, `[1+1]`
//!   is `[i+1]` (e.g. `КПТ[1]`, `АУС[1-1]`, `МП0[1]`, `МВ(МП[1+1], F[i+1])`).
//! * `ЧВ^-КЩфЮКИ, НКОКП[1])` is `ЧВ((1-КП[i])*ОК[i], НКОКП[i])` (prismatic
//!   displacement added to the pole base); `ЧВ^ИЮОД` is `ЧВ(КП[i]*ОС[i]`;
//!   `ЧВ(2*ОСИ,` is `ЧВ(2*ОС[i],` (Coriolis term of a prismatic joint).
//! * `МТр\Т]`, `АУЦМр\Т]`, `АУСрЧ]` are `МТ[N]`, `АУЦМ[N]`, `АУС[N]`.
//! * `ВЩЦМЩ, F[i])` is `ВП(ЦМ[i], F[i])`; `Bn(PB(KnT[i+1], ЦМ[i]), MB(Mn[i+1],
//!   F[i+1]))` is `ВП(РВ(КПТ[i+1], ЦМ[i]), МВ(МП[i+1], F[i+1]))` (Latin
//!   look-alikes of ВП, РВ, КПТ, МВ, МП); `ОДСр]` is `ОДС[i]`.
//! * Helper names: `4B` = ЧВ (scalar·vector), `CB` = СВ (vector sum), `PB` =
//!   РВ (difference), `Bn` = ВП (cross), `Cn` = СП (dot), `MB` = МВ
//!   (matrix·vector), `YM` = УМ (matrix·matrix).
//! * Listing 2's data: `MI` is `МТ`, `qM` is `ЦМ`, `OK/OC/OY` are `ОК/ОС/ОУ`.

/// Telegin's parameters; [`Default`] holds Listing 2's values (SI units).
///
/// `icxk`/`icyk` are the principal central moments of inertia of body k. The
/// tensors are diag(icx1, icy1, icy1), diag(icx2, icy2, icy2) and
/// diag(icxk, icyk, icxk) for k = 3..6 (bodies 3..6 are symmetric about their
/// y axis, which the closed forms rely on). `a1, a2` are the x offsets of the
/// centres of mass of bodies 1, 2 from their poles; `b3, b5, b6` the −y offsets
/// and `b4` the +y offset of bodies 3..6; `l1, l2` the pole distances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeleginParams {
    /// Mass of body 1, kg.
    pub m01: f64,
    /// Mass of body 2, kg.
    pub m02: f64,
    /// Mass of body 3, kg.
    pub m03: f64,
    /// Mass of body 4, kg.
    pub m04: f64,
    /// Mass of body 5, kg.
    pub m05: f64,
    /// Mass of body 6, kg.
    pub m06: f64,
    /// Central moment of inertia of body 1 about its x axis, kg·m².
    pub icx1: f64,
    /// Central moment of inertia of body 1 about its y axis, kg·m².
    pub icy1: f64,
    /// Central moment of inertia of body 2 about its x axis, kg·m².
    pub icx2: f64,
    /// Central moment of inertia of body 2 about its y axis, kg·m².
    pub icy2: f64,
    /// Central moment of inertia of body 3 about its x axis, kg·m².
    pub icx3: f64,
    /// Central moment of inertia of body 3 about its y axis, kg·m².
    pub icy3: f64,
    /// Central moment of inertia of body 4 about its x axis, kg·m².
    pub icx4: f64,
    /// Central moment of inertia of body 4 about its y axis, kg·m².
    pub icy4: f64,
    /// Central moment of inertia of body 5 about its x axis, kg·m².
    pub icx5: f64,
    /// Central moment of inertia of body 5 about its y axis, kg·m².
    pub icy5: f64,
    /// Central moment of inertia of body 6 about its x axis, kg·m².
    pub icx6: f64,
    /// Central moment of inertia of body 6 about its y axis, kg·m².
    pub icy6: f64,
    /// x offset of body 1's centre of mass from its pole, m.
    pub a1: f64,
    /// x offset of body 2's centre of mass from its pole, m.
    pub a2: f64,
    /// −y offset of body 3's centre of mass from its pole, m.
    pub b3: f64,
    /// +y offset of body 4's centre of mass from its pole, m.
    pub b4: f64,
    /// −y offset of body 5's centre of mass from its pole, m.
    pub b5: f64,
    /// −y offset of body 6's centre of mass from its pole, m.
    pub b6: f64,
    /// Pole distance 1, m.
    pub l1: f64,
    /// Pole distance 2, m.
    pub l2: f64,
    /// Gravitational acceleration, m/s².
    pub g: f64,
}

impl Default for TeleginParams {
    fn default() -> Self {
        TeleginParams {
            m01: 10.0,
            m02: 8.0,
            m03: 5.0,
            m04: 3.0,
            m05: 2.0,
            m06: 1.0,
            icx1: 0.6,
            icy1: 0.9,
            icx2: 0.4,
            icy2: 0.8,
            icx3: 0.6,
            icy3: 0.3,
            icx4: 0.5,
            icy4: 0.2,
            icx5: 0.4,
            icy5: 0.1,
            icx6: 0.3,
            icy6: 0.1,
            a1: 0.2,
            a2: 0.3,
            b3: 0.4,
            b4: 0.2,
            b5: 0.1,
            b6: 0.07,
            l1: 0.5,
            l2: 0.5,
            g: 9.81,
        }
    }
}

/// Listing 2's generalized coordinates q1..q6 (rad, except q4 in m).
pub const LISTING2_Q: [f64; 6] = [3.2, 2.2, 4.1, 2.1, 1.1, 2.1];
/// Listing 2's generalized velocities.
pub const LISTING2_QD: [f64; 6] = [3.2, 2.2, 4.1, 2.1, 4.1, 2.1];
/// Listing 2's generalized accelerations.
pub const LISTING2_QDD: [f64; 6] = [2.3, 3.2, 1.3, 2.1, 1.1, 2.1];

/// The constants Listing 2 computes before the formulas; shared by both closed
/// forms so the L1 ≠ L2 variant differs only where it must.
struct Derived {
    m4: f64,
    a: f64,
    b: f64,
    ic34: f64,
    ix56: f64,
    iy56: f64,
    id1: f64,
    id2: f64,
    d: f64,
    id: f64,
    ie: f64,
    if_: f64,
}

fn derived(p: &TeleginParams) -> Derived {
    let m5 = p.m05 + p.m06;
    let m4 = p.m04 + m5;
    let m3 = p.m03 + m4;
    let m2 = p.m02 + m3;
    let a = p.m05 * p.b5 + p.m06 * p.b6;
    let b = p.m02 * p.a2 + m3 * p.l2;
    let ix6 = p.icx6 + p.m06 * p.b6 * p.b6;
    let ix5 = p.icx5 + p.m05 * p.b5 * p.b5;
    let ic34 = p.icy3 + p.icy4;
    let d5 = p.icy5 - ix5;
    let d6 = p.icy6 - ix6;
    let id2 = p.icy2 + p.m02 * p.a2 * p.a2 + m3 * p.l2 * p.l2;
    let id1 = p.icy1 + p.m01 * p.a1 * p.a1 + m2 * p.l1 * p.l1;
    let ix56 = ix5 + ix6;
    let d = d5 + d6;
    let id = d6 + ix6;
    let iy56 = p.icy5 + p.icy6;
    let ie = ix56 - iy56 - d5 - d6;
    let if_ = d6 + ix6;
    Derived {
        m4,
        a,
        b,
        ic34,
        ix56,
        iy56,
        id1,
        id2,
        d,
        id,
        ie,
        if_,
    }
}

/// Listing 2's formulas with the link-1 and link-2 lengths that multiply the
/// `…23` and `…3` terms of M3 and M5 passed separately (`la1`, `la2`, both
/// already multiplied by `a`); Listing 2 itself has `la1 = la2 = L1·a`.
fn closed_form_with(
    p: &TeleginParams,
    la1: f64,
    la2: f64,
    q: &[f64; 6],
    qd: &[f64; 6],
    qdd: &[f64; 6],
) -> [f64; 6] {
    let k = derived(p);
    // q1 and q4 do not appear (vertical axis / vertical slide); q6 does not
    // either, because body 6 is symmetric about its own rotation axis.
    let [_, q2, q3, _, q5, _] = *q;
    let [qt1, qt2, qt3, _, qt5, qt6] = *qd;
    let [qtt1, qtt2, qtt3, qtt4, qtt5, qtt6] = *qdd;
    let (qt12, qt13) = (qt1 + qt2, qt1 + qt2 + qt3);
    let (qtt12, qtt13) = (qtt1 + qtt2, qtt1 + qtt2 + qtt3);
    let (s2, c2) = q2.sin_cos();
    let (s3, c3) = q3.sin_cos();
    let (s5, c5) = q5.sin_cos();
    let (s23, c23) = (q2 + q3).sin_cos();
    let (a, b, l1, l2, g) = (k.a, k.b, p.l1, p.l2, p.g);

    let m3 = la1 * s5 * (c23 * qtt1 + s23 * qt1 * qt1)
        + la2 * s5 * (c3 * qtt12 + s3 * qt12 * qt12)
        + p.icy6 * c5 * qtt6
        + (k.ic34 + k.ix56 * s5 * s5 + k.iy56 * c5 * c5) * qtt13
        + k.ie * s5 * c5 * qt13 * qt5
        - k.if_ * s5 * qt5 * qt6;
    let m2 = m3
        + k.id2 * qtt12
        + b * l1 * (c2 * qtt1 + s2 * qt1 * qt1)
        + a * l2
            * (s5 * (c3 * qtt13 - s3 * qt13 * qt13)
                + s3 * (c5 * qtt5 - s5 * qt5 * qt5)
                + 2.0 * c3 * c5 * qt13 * qt5);
    let m1 = m2
        + k.id1 * qtt1
        + b * l1 * (c2 * qtt12 - s2 * qt12 * qt12)
        + a * l1
            * (s5 * (c23 * qtt13 - s23 * qt13 * qt13)
                + s23 * (c5 * qtt5 - s5 * qt5 * qt5)
                + 2.0 * c23 * c5 * qt13 * qt5);
    let m5 = la1 * c5 * (s23 * qtt1 - c23 * qt1 * qt1)
        + la2 * c5 * (s3 * qtt12 - c3 * qt12 * qt12)
        + k.ix56 * qtt5
        - s5 * (a * qtt4 - (k.d * c5 * qt13 + k.id * qt6) * qt13)
        + g * a * s5;
    let f4 = k.m4 * qtt4 - a * (s5 * qtt5 + c5 * qt5 * qt5) - k.m4 * g;
    let m6 = p.icy6 * (c5 * qtt13 + qtt6 - s5 * qt13 * qt5);
    [m1, m2, m3, f4, m5, m6]
}

/// The closed-form driving forces of Listing 2, reimplemented, in coordinate
/// order [M1, M2, M3, F4, M5, M6].
///
/// Faithful to the paper, including `La = L1·a` in M3 and M5: valid only for
/// `l1 == l2`, the case the paper derives. Use [`closed_form_unequal_links`]
/// otherwise.
pub fn closed_form(p: &TeleginParams, q: &[f64; 6], qd: &[f64; 6], qdd: &[f64; 6]) -> [f64; 6] {
    let la = p.l1 * derived(p).a;
    closed_form_with(p, la, la, q, qd, qdd)
}

/// Listing 2's closed forms generalised to L1 ≠ L2 by our own correction
/// (`L1·a` on the link-1 `…23` terms, `L2·a` on the link-2 `…3` terms of M3 and
/// M5), so that parameter sweeps need not keep the links equal. Identical to
/// [`closed_form`] when `l1 == l2`.
pub fn closed_form_unequal_links(
    p: &TeleginParams,
    q: &[f64; 6],
    qd: &[f64; 6],
    qdd: &[f64; 6],
) -> [f64; 6] {
    let a = derived(p).a;
    closed_form_with(p, p.l1 * a, p.l2 * a, q, qd, qdd)
}

type V3 = [f64; 3];
type M3 = [[f64; 3]; 3];

fn mv(a: &M3, b: &V3) -> V3 {
    let mut c = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i] += a[i][j] * b[j];
        }
    }
    c
}

fn mm(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for k in 0..3 {
        for i in 0..3 {
            for j in 0..3 {
                c[i][k] += a[i][j] * b[j][k];
            }
        }
    }
    c
}

fn transpose(a: &M3) -> M3 {
    let mut t = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            t[i][j] = a[j][i];
        }
    }
    t
}

fn sv(s: f64, a: &V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

fn add(vs: &[V3]) -> V3 {
    let mut r = [0.0; 3];
    for v in vs {
        r[0] += v[0];
        r[1] += v[1];
        r[2] += v[2];
    }
    r
}

fn sub(a: &V3, b: &V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: &V3, b: &V3) -> V3 {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

fn dot(a: &V3, b: &V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Input lists of СФСТОВ, named as in Listing 1 (transliterated).
struct Sfstov<'a, const N: usize> {
    /// КП: true = revolute (1), false = prismatic (0).
    kp: &'a [bool; N],
    /// НКОКП: joint axes in the previous body's frame.
    nkokp: &'a [V3; N],
    /// КБПТ: pole bases in the previous body's frame.
    kbpt: &'a [V3; N],
    /// МТ: masses.
    mt: &'a [f64; N],
    /// ЦМ: centres of mass in the body frames.
    cm: &'a [V3; N],
    /// ТИТ: central inertia tensors in body axes.
    tit: &'a [M3; N],
}

/// Listing 1, statement by statement: forward pass for angular velocity (АУС),
/// angular acceleration (АУУ), pole acceleration (АУП) and relative CoM
/// acceleration (АУЦМ) in body frames; backward pass for the force F and
/// moment M about the pole that body i−1 exerts on body i; the generalized
/// force (ОДС) is the axis component of F (prismatic) or M (revolute).
fn sfstov<const N: usize>(
    s: &Sfstov<'_, N>,
    ok: &[f64; N],
    oc: &[f64; N],
    oy: &[f64; N],
    g: f64,
) -> [f64; N] {
    let kp = |i: usize| if s.kp[i] { 1.0 } else { 0.0 };
    let mut mp = [[[0.0; 3]; 3]; N];
    let mut mpt = [[[0.0; 3]; 3]; N];
    for i in 0..N {
        mp[i] = if s.kp[i] {
            let [qx, qy, qz] = s.nkokp[i];
            let (sn, c) = ok[i].sin_cos();
            let c1 = 1.0 - c;
            [
                [
                    qx * qx * c1 + c,
                    qx * qy * c1 - qz * sn,
                    qx * qz * c1 + qy * sn,
                ],
                [
                    qx * qy * c1 + qz * sn,
                    qy * qy * c1 + c,
                    qy * qz * c1 - qx * sn,
                ],
                [
                    qx * qz * c1 - qy * sn,
                    qy * qz * c1 + qx * sn,
                    qz * qz * c1 + c,
                ],
            ]
        } else {
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        };
        mpt[i] = transpose(&mp[i]);
    }
    let mut kpt = [[0.0; 3]; N];
    let mut auc = [[0.0; 3]; N];
    let mut auu = [[0.0; 3]; N];
    let mut aup = [[0.0; 3]; N];
    let mut aucm = [[0.0; 3]; N];
    let mut mp0 = [[[0.0; 3]; 3]; N];
    auc[0] = sv(kp(0) * oc[0], &s.nkokp[0]);
    auu[0] = sv(kp(0) * oy[0], &s.nkokp[0]);
    aup[0] = sv((1.0 - kp(0)) * oy[0], &s.nkokp[0]);
    aucm[0] = add(&[
        cross(&auu[0], &s.cm[0]),
        cross(&auc[0], &cross(&auc[0], &s.cm[0])),
    ]);
    mp0[0] = mpt[0];
    for i in 1..N {
        let ax = &s.nkokp[i];
        kpt[i] = add(&[s.kbpt[i], sv((1.0 - kp(i)) * ok[i], ax)]);
        auc[i] = mv(&mpt[i], &add(&[auc[i - 1], sv(kp(i) * oc[i], ax)]));
        aup[i] = mv(
            &mpt[i],
            &add(&[
                aup[i - 1],
                cross(&auu[i - 1], &kpt[i]),
                cross(&auc[i - 1], &cross(&auc[i - 1], &kpt[i])),
                sv(
                    1.0 - kp(i),
                    &add(&[sv(oy[i], ax), sv(2.0 * oc[i], &cross(&auc[i - 1], ax))]),
                ),
            ]),
        );
        auu[i] = mv(
            &mpt[i],
            &add(&[
                auu[i - 1],
                sv(
                    kp(i),
                    &add(&[sv(oy[i], ax), sv(oc[i], &cross(&auc[i - 1], ax))]),
                ),
            ]),
        );
        aucm[i] = add(&[
            cross(&auu[i], &s.cm[i]),
            cross(&auc[i], &cross(&auc[i], &s.cm[i])),
        ]);
        mp0[i] = mm(&mpt[i], &mp0[i - 1]);
    }
    let gw = [0.0, -g, 0.0];
    let mut f = [[0.0; 3]; N];
    let mut m = [[0.0; 3]; N];
    for i in (0..N).rev() {
        let own = sv(s.mt[i], &add(&[aup[i], sub(&aucm[i], &mv(&mp0[i], &gw))]));
        let euler = add(&[
            mv(&s.tit[i], &auu[i]),
            cross(&auc[i], &mv(&s.tit[i], &auc[i])),
        ]);
        if i + 1 == N {
            f[i] = own;
            m[i] = add(&[euler, cross(&s.cm[i], &f[i])]);
        } else {
            let fc = mv(&mp[i + 1], &f[i + 1]);
            f[i] = add(&[own, fc]);
            m[i] = add(&[
                euler,
                cross(&s.cm[i], &f[i]),
                cross(&sub(&kpt[i + 1], &s.cm[i]), &fc),
                mv(&mp[i + 1], &m[i + 1]),
            ]);
        }
    }
    let mut ods = [0.0; N];
    for i in 0..N {
        ods[i] = if s.kp[i] {
            dot(&s.nkokp[i], &m[i])
        } else {
            dot(&s.nkokp[i], &f[i])
        };
    }
    ods
}

fn diag(x: f64, y: f64, z: f64) -> M3 {
    [[x, 0.0, 0.0], [0.0, y, 0.0], [0.0, 0.0, z]]
}

/// A faithful port of Listing 1's recursive routine (СФСТОВ) with Listing 2's
/// data, returning the generalized driving forces [M1, M2, M3, F4, M5, M6].
/// Unlike [`closed_form`] it is exact for any `l1`, `l2`.
pub fn listing1_routine(
    p: &TeleginParams,
    q: &[f64; 6],
    qd: &[f64; 6],
    qdd: &[f64; 6],
) -> [f64; 6] {
    let kp = [true, true, true, false, true, true];
    let nkokp = [
        [0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0],
    ];
    let kbpt = [
        [0.0; 3],
        [p.l1, 0.0, 0.0],
        [p.l2, 0.0, 0.0],
        [0.0; 3],
        [0.0; 3],
        [0.0; 3],
    ];
    let mt = [p.m01, p.m02, p.m03, p.m04, p.m05, p.m06];
    let cm = [
        [p.a1, 0.0, 0.0],
        [p.a2, 0.0, 0.0],
        [0.0, -p.b3, 0.0],
        [0.0, p.b4, 0.0],
        [0.0, -p.b5, 0.0],
        [0.0, -p.b6, 0.0],
    ];
    let tit = [
        diag(p.icx1, p.icy1, p.icy1),
        diag(p.icx2, p.icy2, p.icy2),
        diag(p.icx3, p.icy3, p.icx3),
        diag(p.icx4, p.icy4, p.icx4),
        diag(p.icx5, p.icy5, p.icx5),
        diag(p.icx6, p.icy6, p.icx6),
    ];
    let s = Sfstov {
        kp: &kp,
        nkokp: &nkokp,
        kbpt: &kbpt,
        mt: &mt,
        cm: &cm,
        tit: &tit,
    };
    sfstov(&s, q, qd, qdd, p.g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn rel_err(a: &[f64; 6], b: &[f64; 6]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / x.abs().max(1.0))
            .fold(0.0, f64::max)
    }

    fn random6(rng: &mut SmallRng, r: f64) -> [f64; 6] {
        let mut v = [0.0; 6];
        for x in &mut v {
            *x = rng.gen_range(-r..r);
        }
        v
    }

    #[test]
    fn listing2_state_agrees() {
        let p = TeleginParams::default();
        let c = closed_form(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
        let r = listing1_routine(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
        assert!(rel_err(&r, &c) < 1e-12, "{c:?} vs {r:?}");
        // Values pinned from this reconstruction so that a later edit to
        // either function cannot drift unnoticed.
        let expected = [
            -8.010_518_60,
            78.611_761_38,
            20.498_690_43,
            -48.583_425_30,
            -14.593_327_14,
            -2.952_807_30,
        ];
        for (x, e) in r.iter().zip(expected) {
            assert!((x - e).abs() < 1e-7, "{r:?}");
        }
    }

    #[test]
    fn random_states_agree() {
        let p = TeleginParams::default();
        let mut rng = SmallRng::seed_from_u64(0x7e1e_9104);
        for _ in 0..100 {
            let q = random6(&mut rng, 4.0);
            let qd = random6(&mut rng, 4.0);
            let qdd = random6(&mut rng, 4.0);
            let c = closed_form(&p, &q, &qd, &qdd);
            let r = listing1_routine(&p, &q, &qd, &qdd);
            assert!(
                rel_err(&r, &c) < 1e-12,
                "q={q:?} qd={qd:?} qdd={qdd:?}: {c:?} vs {r:?}"
            );
        }
    }

    fn random_params(rng: &mut SmallRng) -> TeleginParams {
        let mut u = || rng.gen_range(0.1..2.0);
        TeleginParams {
            m01: u(),
            m02: u(),
            m03: u(),
            m04: u(),
            m05: u(),
            m06: u(),
            icx1: u(),
            icy1: u(),
            icx2: u(),
            icy2: u(),
            icx3: u(),
            icy3: u(),
            icx4: u(),
            icy4: u(),
            icx5: u(),
            icy5: u(),
            icx6: u(),
            icy6: u(),
            a1: u(),
            a2: u(),
            b3: u(),
            b4: u(),
            b5: u(),
            b6: u(),
            l1: u(),
            l2: u(),
            g: u(),
        }
    }

    /// Every parameter enters the comparison, not only Listing 2's values
    /// (which could hide a misread name whose value coincides, e.g. L1 = L2).
    #[test]
    fn random_parameters_agree() {
        let mut rng = SmallRng::seed_from_u64(17);
        for _ in 0..100 {
            let mut p = random_params(&mut rng);
            let q = random6(&mut rng, 4.0);
            let qd = random6(&mut rng, 4.0);
            let qdd = random6(&mut rng, 4.0);
            let r = listing1_routine(&p, &q, &qd, &qdd);
            let u = closed_form_unequal_links(&p, &q, &qd, &qdd);
            assert!(rel_err(&r, &u) < 1e-12, "{p:?}: {u:?} vs {r:?}");
            p.l2 = p.l1;
            let r = listing1_routine(&p, &q, &qd, &qdd);
            let c = closed_form(&p, &q, &qd, &qdd);
            assert!(rel_err(&r, &c) < 1e-12, "{p:?}: {c:?} vs {r:?}");
        }
    }

    /// The paper's closed forms really need L1 = L2: documents the restriction.
    #[test]
    fn closed_form_needs_equal_links() {
        let p = TeleginParams {
            l2: 0.8,
            ..TeleginParams::default()
        };
        let r = listing1_routine(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
        let c = closed_form(&p, &LISTING2_Q, &LISTING2_QD, &LISTING2_QDD);
        assert!(rel_err(&r, &c) > 1e-3);
    }

    /// A check of the reconstructed routine that does not rely on Listing 2:
    /// the mass matrix read off by unit accelerations (g = 0, qd = 0) must be
    /// symmetric and positive definite on the diagonal.
    #[test]
    fn routine_mass_matrix_symmetric() {
        let p = TeleginParams {
            g: 0.0,
            ..TeleginParams::default()
        };
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..20 {
            let q = random6(&mut rng, 4.0);
            let z = [0.0; 6];
            let mut mass = [[0.0; 6]; 6];
            for (j, col) in (0..6).map(|j| {
                let mut e = [0.0; 6];
                e[j] = 1.0;
                (j, listing1_routine(&p, &q, &z, &e))
            }) {
                for i in 0..6 {
                    mass[i][j] = col[i];
                }
            }
            for i in 0..6 {
                assert!(mass[i][i] > 0.0);
                for j in 0..6 {
                    assert!((mass[i][j] - mass[j][i]).abs() < 1e-12, "{mass:?}");
                }
            }
        }
    }
}
