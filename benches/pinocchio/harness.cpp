// Pinocchio against sharnir's generated code: RNEA, CRBA, ABA, the
// derivatives (computeRNEADerivatives, computeABADerivatives,
// computeMinverse; and sharnir's forward differences of its own inverse and
// forward dynamics) and the regressors (computeJointTorqueRegressor against
// standard_regressor and the minimal regressor, regressor.hpp) on UR5,
// Panda, KUKA iiwa, Solo12 (free flyer) and Talos (free flyer). Built and run
// by run.sh; see README.md. Usage: harness <models dir> [batches], where the
// directory holds export_models.py's <robot>.txt and <robot>_bodies.txt.
//
// For each robot: rebuild Pinocchio's model (as Pinocchio's URDF parser
// made it from tests/fixtures, exported by export_models.py), map sharnir's coordinates
// to Pinocchio's by name (a free flyer's entries named root_joint_x ..
// root_joint_qw and root_joint_vx .. root_joint_wz, as in
// tests/support/pinocchio.rs: Pinocchio's layout, quaternion scalar last,
// velocity in the base's local frame, linear first, which is sharnir's
// convention too), draw 64 random states, check that both sides agree
// (relative 1e-8; sharnir's forward differences 1e-4) and only then time
// interleaved batches.

#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <string>
#include <vector>

// The results come back by value, as structs of doubles: the C ABI passes
// the caller's memory as the hidden result pointer and sharnir's function
// writes straight into it (an out-parameter would cost a copy of the
// result on the Rust side, see ffi/src/lib.rs). The sizes are compile-time
// constants here, checked against sharnir_<r>_nv() before anything is timed.
template <size_t N> struct Doubles {
  double v[N];
};

extern "C" {
#define SHARNIR_DECLARE(r, nv)                                                             \
  size_t sharnir_##r##_nq();                                                               \
  size_t sharnir_##r##_nv();                                                               \
  const char *sharnir_##r##_position_name(size_t, size_t *);                               \
  const char *sharnir_##r##_coordinate_name(size_t, size_t *);                             \
  Doubles<nv> sharnir_##r##_inverse_dynamics(const double *, const double *,               \
                                             const double *);                              \
  Doubles<nv * nv> sharnir_##r##_mass_matrix(const double *);                              \
  Doubles<nv> sharnir_##r##_forward_dynamics(const double *, const double *,               \
                                             const double *);                              \
  Doubles<2 * nv * nv> sharnir_##r##_inverse_dynamics_derivatives(                         \
      const double *, const double *, const double *);                                     \
  Doubles<3 * nv * nv> sharnir_##r##_forward_dynamics_derivatives(                         \
      const double *, const double *, const double *);                                     \
  Doubles<nv * nv> sharnir_##r##_mass_matrix_inverse(const double *);                      \
  Doubles<2 * nv * nv> sharnir_##r##_inverse_dynamics_differences(                         \
      const double *, const double *, const double *);                                     \
  Doubles<2 * nv * nv> sharnir_##r##_forward_dynamics_differences(                         \
      const double *, const double *, const double *);
SHARNIR_DECLARE(ur5, 6)
SHARNIR_DECLARE(panda, 7)
SHARNIR_DECLARE(iiwa, 7)
SHARNIR_DECLARE(solo12, 18)
SHARNIR_DECLARE(anymal, 18)
SHARNIR_DECLARE(talos, 38)
}

namespace pin = pinocchio;
using Vec = Eigen::VectorXd;

struct Sharnir {
  size_t nv_declared; // the nv the declarations above were written for
  size_t (*nq)();
  size_t (*nv)();
  const char *(*position_name)(size_t, size_t *);
  const char *(*coordinate_name)(size_t, size_t *);
  void (*id)(const double *, const double *, const double *, double *);
  void (*mm)(const double *, double *);
  void (*fd)(const double *, const double *, const double *, double *);
  // [dtau/dq, dtau/dqd], [dqdd/dq, dqdd/dqd, Minv], Minv, and the two
  // pairs by forward differences: nv x nv row-major matrices in a row.
  void (*idd)(const double *, const double *, const double *, double *);
  void (*fdd)(const double *, const double *, const double *, double *);
  void (*minv)(const double *, double *);
  void (*iddiff)(const double *, const double *, const double *, double *);
  void (*fddiff)(const double *, const double *, const double *, double *);
};
// Out-parameter adapters: placement new from the returned prvalue is
// C++17's guaranteed copy elision, so `out` is the hidden result pointer.
#define SHARNIR(r, n)                                                                      \
  Sharnir {                                                                                \
    n, sharnir_##r##_nq, sharnir_##r##_nv, sharnir_##r##_position_name,                    \
        sharnir_##r##_coordinate_name,                                                     \
        [](const double *q, const double *qd, const double *qdd, double *out) {            \
          new (out) Doubles<n>(sharnir_##r##_inverse_dynamics(q, qd, qdd));                \
        },                                                                                 \
        [](const double *q, double *out) {                                                 \
          new (out) Doubles<n * n>(sharnir_##r##_mass_matrix(q));                          \
        },                                                                                 \
        [](const double *q, const double *qd, const double *tau, double *out) {            \
          new (out) Doubles<n>(sharnir_##r##_forward_dynamics(q, qd, tau));                \
        },                                                                                 \
        [](const double *q, const double *qd, const double *qdd, double *out) {            \
          new (out)                                                                        \
              Doubles<2 * n * n>(sharnir_##r##_inverse_dynamics_derivatives(q, qd, qdd));  \
        },                                                                                 \
        [](const double *q, const double *qd, const double *tau, double *out) {            \
          new (out)                                                                        \
              Doubles<3 * n * n>(sharnir_##r##_forward_dynamics_derivatives(q, qd, tau));  \
        },                                                                                 \
        [](const double *q, double *out) {                                                 \
          new (out) Doubles<n * n>(sharnir_##r##_mass_matrix_inverse(q));                  \
        },                                                                                 \
        [](const double *q, const double *qd, const double *qdd, double *out) {            \
          new (out)                                                                        \
              Doubles<2 * n * n>(sharnir_##r##_inverse_dynamics_differences(q, qd, qdd));  \
        },                                                                                 \
        [](const double *q, const double *qd, const double *tau, double *out) {            \
          new (out)                                                                        \
              Doubles<2 * n * n>(sharnir_##r##_forward_dynamics_differences(q, qd, tau));  \
        }                                                                                  \
  }

// export_models.py's text: joints with their parents, placements and
// inertias, added in Pinocchio's order (so the model is Pinocchio's own).
static pin::Model load_model(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s (run export_models.py)\n", path.c_str());
    std::exit(2);
  }
  int njoints, nq, nv;
  in >> njoints >> nq >> nv;
  pin::Model model;
  Eigen::Vector3d g;
  in >> g[0] >> g[1] >> g[2];
  model.gravity.linear(g);
  for (int j = 0; j < njoints; ++j) {
    std::string name, kind;
    int parent;
    Eigen::Matrix3d R, I;
    Eigen::Vector3d p, c;
    double m;
    in >> name >> kind >> parent;
    for (int i = 0; i < 9; ++i) in >> R(i / 3, i % 3);
    for (int i = 0; i < 3; ++i) in >> p[i];
    in >> m;
    for (int i = 0; i < 3; ++i) in >> c[i];
    for (int i = 0; i < 9; ++i) in >> I(i / 3, i % 3);
    const pin::SE3 placement(R, p);
    pin::JointIndex id;
    if (kind == "JointModelRX") id = model.addJoint(parent, pin::JointModelRX(), placement, name);
    else if (kind == "JointModelRY") id = model.addJoint(parent, pin::JointModelRY(), placement, name);
    else if (kind == "JointModelRZ") id = model.addJoint(parent, pin::JointModelRZ(), placement, name);
    else if (kind == "JointModelPX") id = model.addJoint(parent, pin::JointModelPX(), placement, name);
    else if (kind == "JointModelPY") id = model.addJoint(parent, pin::JointModelPY(), placement, name);
    else if (kind == "JointModelPZ") id = model.addJoint(parent, pin::JointModelPZ(), placement, name);
    else if (kind == "JointModelFreeFlyer")
      id = model.addJoint(parent, pin::JointModelFreeFlyer(), placement, name);
    else {
      std::fprintf(stderr, "%s: unknown joint type %s\n", path.c_str(), kind.c_str());
      std::exit(2);
    }
    model.appendBodyToJoint(id, pin::Inertia(m, c, I), pin::SE3::Identity());
  }
  if (!in || model.nq != nq || model.nv != nv) {
    std::fprintf(stderr, "%s: malformed (nq %d/%d, nv %d/%d)\n", path.c_str(), model.nq, nq,
                 model.nv, nv);
    std::exit(2);
  }
  return model;
}

static volatile double sink;

// Pinocchio's coordinate names, in its q and v layouts.
static void pinocchio_names(const pin::Model &model, std::vector<std::string> &qn,
                            std::vector<std::string> &vn) {
  qn.assign(model.nq, "");
  vn.assign(model.nv, "");
  for (pin::JointIndex j = 1; j < (pin::JointIndex)model.njoints; ++j) {
    const auto &joint = model.joints[j];
    const std::string &n = model.names[j];
    if (joint.nq() == 1 && joint.nv() == 1) {
      qn[joint.idx_q()] = n;
      vn[joint.idx_v()] = n;
    } else if (joint.shortname() == "JointModelFreeFlyer") {
      const char *qs[] = {"_x", "_y", "_z", "_qx", "_qy", "_qz", "_qw"};
      const char *vs[] = {"_vx", "_vy", "_vz", "_wx", "_wy", "_wz"};
      for (int k = 0; k < 7; ++k) qn[joint.idx_q() + k] = n + qs[k];
      for (int k = 0; k < 6; ++k) vn[joint.idx_v() + k] = n + vs[k];
    } else {
      std::fprintf(stderr, "no coordinate names for %s `%s`\n", joint.shortname().c_str(),
                   n.c_str());
      std::exit(2);
    }
  }
}

// index[i]: where sharnir's coordinate i is in Pinocchio's vector.
static std::vector<int> map_names(const char *(*name)(size_t, size_t *), size_t n,
                                  const std::vector<std::string> &pin_names,
                                  const char *robot) {
  if (n != pin_names.size()) {
    std::fprintf(stderr, "%s: sharnir has %zu coordinates, Pinocchio %zu\n", robot, n,
                 pin_names.size());
    std::exit(2);
  }
  std::vector<int> index(n);
  for (size_t i = 0; i < n; ++i) {
    size_t len = 0;
    const char *p = name(i, &len);
    std::string s(p, len);
    auto it = std::find(pin_names.begin(), pin_names.end(), s);
    if (it == pin_names.end()) {
      std::fprintf(stderr, "%s: sharnir's coordinate `%s` is not Pinocchio's\n", robot,
                   s.c_str());
      std::exit(2);
    }
    index[i] = int(it - pin_names.begin());
  }
  return index;
}

static double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

// Max |a - b| over max(1, max |b|).
static double rel_err(const double *a, const double *b, size_t n) {
  double d = 0, m = 1;
  for (size_t i = 0; i < n; ++i) {
    d = std::max(d, std::fabs(a[i] - b[i]));
    m = std::max(m, std::fabs(b[i]));
  }
  return d / m;
}

#include "regressor.hpp"

struct Robot {
  const char *name;
  Sharnir s;
  SharnirRegressor g;
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <models dir> [batches]\n", argv[0]);
    return 2;
  }
  const std::string models = argv[1];
  const int batches = argc > 2 ? std::atoi(argv[2]) : 201;
  const int nstates = 64;
  const double tolerance = 1e-8;
  // Forward differences with a step of 2^-26 carry errors of about 1e-7
  // relative; a wrong step (axis, frame, sign) gives errors of order 1.
  const double difference_tolerance = 1e-4;
  Robot robots[] = {
      {"ur5", SHARNIR(ur5, 6), SHARNIR_REGRESSOR(ur5, 6, 6, 12, 48)},
      {"panda", SHARNIR(panda, 7), SHARNIR_REGRESSOR(panda, 7, 7, 14, 57)},
      {"iiwa", SHARNIR(iiwa, 7), SHARNIR_REGRESSOR(iiwa, 7, 7, 7, 50)},
      {"solo12", SHARNIR(solo12, 18), SHARNIR_REGRESSOR(solo12, 18, 13, 24, 118)},
      {"anymal", SHARNIR(anymal, 18), SHARNIR_REGRESSOR(anymal, 18, 13, 24, 118)},
      {"talos", SHARNIR(talos, 38), SHARNIR_REGRESSOR(talos, 38, 33, 64, 298)},
  };
  std::printf("| robot | nv | algorithm | Pinocchio (ns) | sharnir (ns) | Pinocchio / sharnir "
              "| agreement |\n|---|---:|---|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  bool refused = false;
  // The derivatives' and the regressors' tables, printed after the first one.
  std::string derivative_rows, regressor_rows;
  for (const Robot &r : robots) {
    const pin::Model model = load_model(models + "/" + r.name + ".txt");
    pin::Data data(model);
    const int nq = model.nq, nv = model.nv;
    std::vector<std::string> qn, vn;
    pinocchio_names(model, qn, vn);
    const std::vector<int> qi = map_names(r.s.position_name, r.s.nq(), qn, r.name);
    const std::vector<int> vi = map_names(r.s.coordinate_name, r.s.nv(), vn, r.name);
    if (r.s.nv() != r.s.nv_declared) {
      std::fprintf(stderr, "%s: sharnir has nv = %zu, the harness declares %zu\n", r.name,
                   r.s.nv(), r.s.nv_declared);
      std::exit(2);
    }

    // Random states, the same for both sides: angles in ±π, base position
    // in ±1, a uniformly random unit quaternion, velocities in ±2,
    // accelerations in ±5; tau = RNEA(q, v, a) for the forward dynamics.
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::normal_distribution<double> gauss;
    std::vector<Vec> Q, V, A, T;
    for (int k = 0; k < nstates; ++k) {
      Vec q(nq), v(nv), a(nv);
      for (int i = 0; i < nq; ++i) q[i] = M_PI * u(rng);
      for (pin::JointIndex j = 1; j < (pin::JointIndex)model.njoints; ++j)
        if (model.joints[j].shortname() == "JointModelFreeFlyer") {
          int o = model.joints[j].idx_q();
          for (int i = 0; i < 3; ++i) q[o + i] = u(rng);
          Eigen::Vector4d h(gauss(rng), gauss(rng), gauss(rng), gauss(rng));
          q.segment<4>(o + 3) = h.normalized();
        }
      for (int i = 0; i < nv; ++i) v[i] = 2 * u(rng), a[i] = 5 * u(rng);
      Q.push_back(q), V.push_back(v), A.push_back(a);
      T.push_back(pin::rnea(model, data, q, v, a));
    }
    // The same states in sharnir's order.
    std::vector<std::vector<double>> Qs, Vs, As, Ts;
    for (int k = 0; k < nstates; ++k) {
      std::vector<double> q(nq), v(nv), a(nv), t(nv);
      for (int i = 0; i < nq; ++i) q[i] = Q[k][qi[i]];
      for (int i = 0; i < nv; ++i) v[i] = V[k][vi[i]], a[i] = A[k][vi[i]], t[i] = T[k][vi[i]];
      Qs.push_back(q), Vs.push_back(v), As.push_back(a), Ts.push_back(t);
    }

    // Agreement on every state.
    double err[3] = {0, 0, 0};
    std::vector<double> out(nv), mm(nv * nv), ref(nv), refm(nv * nv);
    for (int k = 0; k < nstates; ++k) {
      r.s.id(Qs[k].data(), Vs[k].data(), As[k].data(), out.data());
      for (int i = 0; i < nv; ++i) ref[i] = T[k][vi[i]];
      err[0] = std::max(err[0], rel_err(out.data(), ref.data(), nv));

      pin::crba(model, data, Q[k], pin::Convention::WORLD);
      Eigen::MatrixXd M = data.M;
      M.triangularView<Eigen::StrictlyLower>() = M.transpose();
      pin::crba(model, data, Q[k], pin::Convention::LOCAL);
      Eigen::MatrixXd M2 = data.M;
      M2.triangularView<Eigen::StrictlyLower>() = M2.transpose();
      r.s.mm(Qs[k].data(), mm.data());
      for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) refm[i * nv + j] = M(vi[i], vi[j]);
      err[1] = std::max(err[1], rel_err(mm.data(), refm.data(), nv * nv));
      for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) refm[i * nv + j] = M2(vi[i], vi[j]);
      err[1] = std::max(err[1], rel_err(mm.data(), refm.data(), nv * nv));

      r.s.fd(Qs[k].data(), Vs[k].data(), Ts[k].data(), out.data());
      for (auto conv : {pin::Convention::WORLD, pin::Convention::LOCAL}) {
        pin::aba(model, data, Q[k], V[k], T[k], conv);
        for (int i = 0; i < nv; ++i) ref[i] = data.ddq[vi[i]];
        err[2] = std::max(err[2], rel_err(out.data(), ref.data(), nv));
      }
    }
    const char *alg[3] = {"RNEA", "CRBA", "ABA"};
    bool ok = true;
    for (int f = 0; f < 3; ++f)
      if (!(err[f] <= tolerance)) {
        std::fprintf(stderr, "%s %s: sharnir and Pinocchio differ by %.3e (relative) > %.0e: "
                             "not timed\n", r.name, alg[f], err[f], tolerance);
        ok = false;
      }
    if (!ok) {
      refused = true;
      continue;
    }

    // Timing: per batch, every state once per side, the sides interleaved
    // (Pinocchio, sharnir, Pinocchio at the other convention) so that a busy
    // spell of the machine falls on all; median ns per call over batches.
    using clock = std::chrono::steady_clock;
    auto time = [&](auto &&body) {
      // One batch: `reps` sweeps over the states.
      auto t0 = clock::now();
      body();
      return std::chrono::duration<double, std::nano>(clock::now() - t0).count();
    };
    for (int f = 0; f < 3; ++f) {
      // Warm-up and choice of sweeps per batch (at least ~100 µs).
      int reps = 1;
      for (;;) {
        double t = time([&] {
          for (int s = 0; s < reps; ++s)
            for (int k = 0; k < nstates; ++k) r.s.mm(Qs[k].data(), mm.data());
        });
        if (t > 1e5 || reps > 1 << 16) break;
        reps *= 2;
      }
      std::vector<double> tp[2], ts;
      for (int b = 0; b < batches; ++b) {
        for (int c = 0; c < 2; ++c) {
          auto conv = c == 0 ? pin::Convention::LOCAL : pin::Convention::WORLD;
          tp[c].push_back(time([&] {
            for (int s = 0; s < reps; ++s)
              for (int k = 0; k < nstates; ++k) {
                if (f == 0) {
                  pin::rnea(model, data, Q[k], V[k], A[k]);
                  sink = data.tau[0];
                } else if (f == 1) {
                  pin::crba(model, data, Q[k], conv);
                  sink = data.M(0, nv - 1);
                } else {
                  pin::aba(model, data, Q[k], V[k], T[k], conv);
                  sink = data.ddq[0];
                }
              }
          }) / (reps * nstates));
          if (c == 0) {
            ts.push_back(time([&] {
              for (int s = 0; s < reps; ++s)
                for (int k = 0; k < nstates; ++k) {
                  if (f == 0) {
                    r.s.id(Qs[k].data(), Vs[k].data(), As[k].data(), out.data());
                    sink = out[0];
                  } else if (f == 1) {
                    r.s.mm(Qs[k].data(), mm.data());
                    sink = mm[nv - 1];
                  } else {
                    r.s.fd(Qs[k].data(), Vs[k].data(), Ts[k].data(), out.data());
                    sink = out[0];
                  }
                }
            }) / (reps * nstates));
          }
        }
      }
      // RNEA has no convention: both Pinocchio columns time the same call.
      double p_local = median(tp[0]), p_world = median(tp[1]), s = median(ts);
      double p = std::min(p_local, p_world);
      const char *which = f == 0 ? "" : (p_local <= p_world ? " (LOCAL)" : " (WORLD)");
      std::printf("| %s | %d | %s%s | %.0f | %.0f | %.1f× | %.1e |\n", r.name, nv, alg[f], which,
                  p, s, p / s, err[f]);
      std::fflush(stdout);
    }

    // Derivatives. Agreement on every state: sharnir's emitted derivatives
    // against Pinocchio's analytical ones (1e-8 relative), sharnir's
    // forward differences against the same (1e-4); Pinocchio's Minv
    // (upper triangle) symmetrised.
    const int n2 = nv * nv;
    std::vector<double> d(3 * n2), dd(2 * n2), refd(3 * n2);
    auto gather = [&](const auto &P, double *dst) {
      for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) dst[i * nv + j] = P(vi[i], vi[j]);
    };
    auto symmetric = [](Eigen::MatrixXd P) {
      P.triangularView<Eigen::StrictlyLower>() = P.transpose();
      return P;
    };
    double derr[3] = {0, 0, 0}, ferr[2] = {0, 0};
    for (int k = 0; k < nstates; ++k) {
      pin::computeRNEADerivatives(model, data, Q[k], V[k], A[k]);
      gather(data.dtau_dq, refd.data());
      gather(data.dtau_dv, refd.data() + n2);
      r.s.idd(Qs[k].data(), Vs[k].data(), As[k].data(), d.data());
      derr[0] = std::max(derr[0], rel_err(d.data(), refd.data(), 2 * n2));
      r.s.iddiff(Qs[k].data(), Vs[k].data(), As[k].data(), dd.data());
      ferr[0] = std::max(ferr[0], rel_err(dd.data(), refd.data(), 2 * n2));

      pin::computeABADerivatives(model, data, Q[k], V[k], T[k]);
      gather(data.ddq_dq, refd.data());
      gather(data.ddq_dv, refd.data() + n2);
      gather(symmetric(data.Minv), refd.data() + 2 * n2);
      r.s.fdd(Qs[k].data(), Vs[k].data(), Ts[k].data(), d.data());
      derr[1] = std::max(derr[1], rel_err(d.data(), refd.data(), 3 * n2));
      r.s.fddiff(Qs[k].data(), Vs[k].data(), Ts[k].data(), dd.data());
      ferr[1] = std::max(ferr[1], rel_err(dd.data(), refd.data(), 2 * n2));

      pin::computeMinverse(model, data, Q[k]);
      gather(symmetric(data.Minv), refd.data());
      r.s.minv(Qs[k].data(), d.data());
      derr[2] = std::max(derr[2], rel_err(d.data(), refd.data(), n2));
    }
    const char *dalg[3] = {"∇ID: computeRNEADerivatives / inverse_dynamics_derivatives",
                           "∇FD: computeABADerivatives / forward_dynamics_derivatives",
                           "M⁻¹: computeMinverse / mass_matrix_inverse"};
    for (int c = 0; c < 3; ++c)
      if (!(derr[c] <= tolerance) || (c < 2 && !(ferr[c] <= difference_tolerance))) {
        std::fprintf(stderr, "%s %s: sharnir and Pinocchio differ by %.3e (relative; forward "
                             "differences %.3e): not timed\n",
                     r.name, dalg[c], derr[c], c < 2 ? ferr[c] : 0.0);
        ok = false;
      }
    if (!ok) {
      refused = true;
      continue;
    }

    // Timing as above: per batch, every state once per contender,
    // interleaved (Pinocchio, sharnir's emitted derivatives, sharnir's
    // forward differences); sweeps per batch chosen so that the emitted
    // derivatives' take at least ~100 µs.
    auto sweep = [&](int reps, auto &&call) {
      return time([&] {
               for (int s = 0; s < reps; ++s)
                 for (int k = 0; k < nstates; ++k) call(k);
             }) /
             (reps * nstates);
    };
    auto time_case = [&](int c, auto &&pin_call, auto &&sharnir_call, auto &&difference_call,
                         bool differences) {
      int reps = 1;
      while (sweep(reps, sharnir_call) * reps * nstates <= 1e5 && reps <= 1 << 16) reps *= 2;
      std::vector<double> tp, ts, tf;
      for (int b = 0; b < batches; ++b) {
        tp.push_back(sweep(reps, pin_call));
        ts.push_back(sweep(reps, sharnir_call));
        if (differences) tf.push_back(sweep(reps, difference_call));
      }
      double p = median(tp), s = median(ts);
      char row[512];
      if (differences) {
        double f = median(tf);
        std::snprintf(row, sizeof row,
                      "| %s | %d | %s | %.0f | %.0f | %.1f× | %.0f | %.1f× | %.1e | %.1e |\n",
                      r.name, nv, dalg[c], p, s, p / s, f, f / s, derr[c], ferr[c]);
      } else {
        std::snprintf(row, sizeof row,
                      "| %s | %d | %s | %.0f | %.0f | %.1f× | — | — | %.1e | — |\n", r.name, nv,
                      dalg[c], p, s, p / s, derr[c]);
      }
      derivative_rows += row;
      std::fprintf(stderr, "%s", row);
    };
    time_case(
        0,
        [&](int k) {
          pin::computeRNEADerivatives(model, data, Q[k], V[k], A[k]);
          sink = data.dtau_dq(0, nv - 1);
        },
        [&](int k) {
          r.s.idd(Qs[k].data(), Vs[k].data(), As[k].data(), d.data());
          sink = d[nv - 1];
        },
        [&](int k) {
          r.s.iddiff(Qs[k].data(), Vs[k].data(), As[k].data(), dd.data());
          sink = dd[nv - 1];
        },
        true);
    time_case(
        1,
        [&](int k) {
          pin::computeABADerivatives(model, data, Q[k], V[k], T[k]);
          sink = data.ddq_dq(0, nv - 1);
        },
        [&](int k) {
          r.s.fdd(Qs[k].data(), Vs[k].data(), Ts[k].data(), d.data());
          sink = d[nv - 1];
        },
        [&](int k) {
          r.s.fddiff(Qs[k].data(), Vs[k].data(), Ts[k].data(), dd.data());
          sink = dd[nv - 1];
        },
        true);
    time_case(
        2,
        [&](int k) {
          pin::computeMinverse(model, data, Q[k]);
          sink = data.Minv(0, nv - 1);
        },
        [&](int k) {
          r.s.minv(Qs[k].data(), d.data());
          sink = d[nv - 1];
        },
        [](int) {}, false);

    // The regressors (regressor.hpp): checked, then timed the same way.
    if (!regressor_case(r.name, r.g, model, data, models + "/" + r.name + "_bodies.txt", vi,
                        RegressorStates{Q, V, A, T, Qs, Vs, As, Ts}, batches, sweep,
                        regressor_rows))
      refused = true;
  }
  std::printf("\n| robot | nv | derivatives: Pinocchio / sharnir | Pinocchio (ns) | sharnir (ns) "
              "| Pinocchio / sharnir | sharnir's forward differences (ns) | differences / "
              "sharnir | agreement | differences' agreement |\n"
              "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n%s",
              derivative_rows.c_str());
  print_regressor_table(regressor_rows);
  return refused ? 1 : 0;
}
