// The regressors: sharnir's standard_regressor and minimal regressor against
// Pinocchio's computeJointTorqueRegressor. Included by harness.cpp after its
// Doubles, Vec, median and sink; see README.md, item 8.
//
// Pinocchio has no minimal regressor: computeJointTorqueRegressor is the
// standard one, ten columns per body (the mass m, the first moment m c and
// the inertia about the body origin, xx xy yy xz yz zz, in the joint's
// frame), like sharnir's standard_regressor, whose ten columns per body are
// the same parameters in the same order (then one column per drive
// parameter: armature, damping, friction, which Pinocchio's has not). The
// minimal regressor Y_b (sharnir's `regressor`, one column per base
// parameter) is what an identification loop evaluates.
//
// Before timing, on every state: the standard regressor's body columns
// against Pinocchio's (rows mapped by coordinate name, column blocks by body
// name through export_models.py's <robot>_bodies.txt), the largest
// difference over the matrix's largest entry; and Y_b β (β the module's
// base_parameters) against Pinocchio's RNEA less the module's
// friction_forces (the regressors give the force the drives supply, which
// includes the joints' damping and friction; Pinocchio's model has none),
// over max(1, max |τ|). Either above 1e-8 refuses the robot.

#include <pinocchio/algorithm/regressor.hpp>

extern "C" {
// nv, nb, nd, nbp: the module's NV, NB, ND, NBP, checked against
// sharnir_<r>_nb() ... before anything is timed.
#define SHARNIR_DECLARE_REGRESSOR(r, nv, nb, nd, nbp)                                      \
  size_t sharnir_##r##_nb();                                                               \
  size_t sharnir_##r##_nd();                                                               \
  size_t sharnir_##r##_nbp();                                                              \
  const char *sharnir_##r##_body_name(size_t, size_t *);                                   \
  Doubles<nbp> sharnir_##r##_base_parameters();                                            \
  Doubles<nv> sharnir_##r##_friction_forces(const double *, const double *);               \
  Doubles<nv *(10 * nb + nd)> sharnir_##r##_standard_regressor(                            \
      const double *, const double *, const double *);                                     \
  Doubles<nv * nbp> sharnir_##r##_regressor(const double *, const double *, const double *);
SHARNIR_DECLARE_REGRESSOR(ur5, 6, 6, 12, 48)
SHARNIR_DECLARE_REGRESSOR(panda, 7, 7, 14, 57)
SHARNIR_DECLARE_REGRESSOR(iiwa, 7, 7, 7, 50)
SHARNIR_DECLARE_REGRESSOR(solo12, 18, 13, 24, 118)
SHARNIR_DECLARE_REGRESSOR(anymal, 18, 13, 24, 118)
SHARNIR_DECLARE_REGRESSOR(talos, 38, 33, 64, 298)
}

struct SharnirRegressor {
  size_t nb_declared, nd_declared, nbp_declared; // what the declarations assume
  size_t (*nb)();
  size_t (*nd)();
  size_t (*nbp)();
  const char *(*body_name)(size_t, size_t *);
  void (*beta)(double *);
  void (*friction)(const double *, const double *, double *);
  // nv x (10 nb + nd) and nv x nbp, row-major.
  void (*standard)(const double *, const double *, const double *, double *);
  void (*minimal)(const double *, const double *, const double *, double *);
};
// Out-parameter adapters, as SHARNIR's: `out` is the hidden result pointer.
#define SHARNIR_REGRESSOR(r, n, nb, nd, nbp)                                               \
  SharnirRegressor {                                                                       \
    nb, nd, nbp, sharnir_##r##_nb, sharnir_##r##_nd, sharnir_##r##_nbp,                    \
        sharnir_##r##_body_name,                                                           \
        [](double *out) { new (out) Doubles<nbp>(sharnir_##r##_base_parameters()); },      \
        [](const double *q, const double *qd, double *out) {                               \
          new (out) Doubles<n>(sharnir_##r##_friction_forces(q, qd));                      \
        },                                                                                 \
        [](const double *q, const double *qd, const double *qdd, double *out) {            \
          new (out) Doubles<n *(10 * nb + nd)>(sharnir_##r##_standard_regressor(q, qd, qdd)); \
        },                                                                                 \
        [](const double *q, const double *qd, const double *qdd, double *out) {            \
          new (out) Doubles<n * nbp>(sharnir_##r##_regressor(q, qd, qdd));                 \
        }                                                                                  \
  }

// The states of one robot, as harness.cpp draws them: Pinocchio's order
// (Q, V, A, and T = RNEA) and sharnir's (Qs, Vs, As, Ts).
struct RegressorStates {
  const std::vector<Vec> &Q, &V, &A, &T;
  const std::vector<std::vector<double>> &Qs, &Vs, &As, &Ts;
};

// Checks one robot's regressors against Pinocchio's and times them: per
// batch, every state once for computeJointTorqueRegressor, then sharnir's
// standard_regressor, then its regressor; sweeps per batch chosen so that
// the regressor's take at least ~100 µs. `sweep(reps, call)` is the
// harness's (ns per call). Appends the table row to `rows`; false (after a
// message on stderr) if the two sides disagree.
template <class Sweep>
static bool regressor_case(const char *robot, const SharnirRegressor &g, const pin::Model &model,
                           pin::Data &data, const std::string &bodies_path,
                           const std::vector<int> &vi, const RegressorStates &s, int batches,
                           Sweep &&sweep, std::string &rows) {
  const double tolerance = 1e-8;
  const int nv = model.nv, nstates = int(s.Q.size());
  const int nb = int(g.nb()), nd = int(g.nd()), nbp = int(g.nbp());
  if (size_t(nb) != g.nb_declared || size_t(nd) != g.nd_declared ||
      size_t(nbp) != g.nbp_declared) {
    std::fprintf(stderr, "%s: sharnir has nb = %d, nd = %d, nbp = %d, the harness declares "
                         "%zu, %zu, %zu\n",
                 robot, nb, nd, nbp, g.nb_declared, g.nd_declared, g.nbp_declared);
    std::exit(2);
  }
  if (nb != model.njoints - 1) {
    std::fprintf(stderr, "%s: sharnir has %d bodies, Pinocchio %d\n", robot, nb,
                 model.njoints - 1);
    std::exit(2);
  }

  // Pinocchio's body of each joint, by name (export_models.py).
  std::map<std::string, int> joint_of_body;
  {
    std::ifstream in(bodies_path);
    if (!in) {
      std::fprintf(stderr, "cannot read %s (run export_models.py)\n", bodies_path.c_str());
      std::exit(2);
    }
    for (int j = 1; j < model.njoints; ++j) {
      std::string joint, body;
      in >> joint >> body;
      if (!in || joint != model.names[j]) {
        std::fprintf(stderr, "%s: joint %d is `%s`, not `%s`\n", bodies_path.c_str(), j,
                     joint.c_str(), model.names[j].c_str());
        std::exit(2);
      }
      joint_of_body[body] = j;
    }
  }
  // column[b]: where sharnir's body b's ten columns start in Pinocchio's
  // regressor.
  std::vector<int> column(nb);
  std::vector<bool> taken(model.njoints, false);
  for (int b = 0; b < nb; ++b) {
    size_t len = 0;
    const char *p = g.body_name(b, &len);
    const std::string name(p, len);
    auto it = joint_of_body.find(name);
    if (it == joint_of_body.end() || taken[it->second]) {
      std::fprintf(stderr, "%s: sharnir's body `%s` is no Pinocchio joint's, or two bodies' "
                           "are one\n",
                   robot, name.c_str());
      std::exit(2);
    }
    taken[it->second] = true;
    column[b] = 10 * (it->second - 1);
  }

  // Agreement on every state.
  const int width = 10 * nb + nd;
  std::vector<double> ys(nv * width), yb(nv * nbp), beta(nbp), tau(nv), ref(nv), f(nv);
  g.beta(beta.data());
  double err_standard = 0, err_minimal = 0;
  for (int k = 0; k < nstates; ++k) {
    const Eigen::MatrixXd &Y =
        pin::computeJointTorqueRegressor(model, data, s.Q[k], s.V[k], s.A[k]);
    g.standard(s.Qs[k].data(), s.Vs[k].data(), s.As[k].data(), ys.data());
    double d = 0, m = 0;
    for (int i = 0; i < nv; ++i)
      for (int b = 0; b < nb; ++b)
        for (int c = 0; c < 10; ++c) {
          const double want = Y(vi[i], column[b] + c);
          d = std::max(d, std::fabs(ys[i * width + 10 * b + c] - want));
          m = std::max(m, std::fabs(want));
        }
    err_standard = std::max(err_standard, d / m);

    g.minimal(s.Qs[k].data(), s.Vs[k].data(), s.As[k].data(), yb.data());
    g.friction(s.Qs[k].data(), s.Vs[k].data(), f.data());
    for (int i = 0; i < nv; ++i) {
      double t = 0;
      for (int c = 0; c < nbp; ++c) t += yb[i * nbp + c] * beta[c];
      tau[i] = t;
      ref[i] = s.Ts[k][i] - f[i];
    }
    err_minimal = std::max(err_minimal, rel_err(tau.data(), ref.data(), nv));
  }
  if (!(err_standard <= tolerance) || !(err_minimal <= tolerance)) {
    std::fprintf(stderr, "%s regressors: standard_regressor and computeJointTorqueRegressor "
                         "differ by %.3e (relative to its largest entry), Y_b beta and RNEA - "
                         "friction_forces by %.3e > %.0e: not timed\n",
                 robot, err_standard, err_minimal, tolerance);
    return false;
  }

  auto pin_call = [&](int k) {
    const Eigen::MatrixXd &Y =
        pin::computeJointTorqueRegressor(model, data, s.Q[k], s.V[k], s.A[k]);
    sink = Y(0, Y.cols() - 1);
  };
  auto standard_call = [&](int k) {
    g.standard(s.Qs[k].data(), s.Vs[k].data(), s.As[k].data(), ys.data());
    sink = ys[width - 1];
  };
  auto minimal_call = [&](int k) {
    g.minimal(s.Qs[k].data(), s.Vs[k].data(), s.As[k].data(), yb.data());
    sink = yb[nbp - 1];
  };
  int reps = 1;
  while (sweep(reps, minimal_call) * reps * nstates <= 1e5 && reps <= 1 << 16) reps *= 2;
  std::vector<double> tp, ts, tm;
  for (int b = 0; b < batches; ++b) {
    tp.push_back(sweep(reps, pin_call));
    ts.push_back(sweep(reps, standard_call));
    tm.push_back(sweep(reps, minimal_call));
  }
  const double p = median(tp), st = median(ts), mi = median(tm);
  char row[512];
  std::snprintf(row, sizeof row,
                "| %s | %d | %d | %d | %d | %.0f | %.0f | %.1f× | %.0f | %.1f× | %.1e | %.1e |\n",
                robot, nv, nb, width, nbp, p, st, p / st, mi, p / mi, err_standard, err_minimal);
  rows += row;
  std::fprintf(stderr, "%s", row);
  return true;
}

static void print_regressor_table(const std::string &rows) {
  std::printf("\n| robot | nv | NB | standard_regressor's columns (10 NB + ND) | regressor's "
              "columns (NBP) | Pinocchio computeJointTorqueRegressor (ns) | sharnir "
              "standard_regressor (ns) | Pinocchio / standard_regressor | sharnir regressor "
              "(ns) | Pinocchio / regressor | standard_regressor's agreement | Y_b β's "
              "agreement with RNEA − friction_forces |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n%s",
              rows.c_str());
}
