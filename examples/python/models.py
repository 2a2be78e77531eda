"""Models in Python for the master methods (doc/python.md, "Models in Python as slaves"): each
class is what tempo.slave runs as a slave, named in a federation file as
"args": ["models:Integrator", "k=2"] beside "program": ".../tempo_slave.py".
"""

# 5-point Gauss-Legendre nodes and weights on [-1, 1]: exact for polynomials of degree <= 9,
# so for every input polynomial the master may set (order <= 8, algorithms/port.h).
_GL = ((-0.9061798459386640, 0.2369268850561891), (-0.5384693101056831, 0.4786286704993665),
       (0.0, 0.5688888888888889), (0.5384693101056831, 0.4786286704993665),
       (0.9061798459386640, 0.2369268850561891))


class Integrator:
    """z' = k u(t), z(start) = z0: one input u, one output z (its state). The step integrates
    the master's input polynomial exactly, so over a macro step with u held, z grows by
    k h u exactly."""

    def __init__(self, params, inputs, outputs):
        if len(inputs) != 1 or len(outputs) != 1:
            raise ValueError("Integrator: wire one input and one output (got %d, %d)"
                             % (len(inputs), len(outputs)))
        self.k = float(params.get("k", 1.0))
        self.z = float(params.get("z0", 0.0))

    def outputs_now(self):
        return [self.z]

    def advance(self, t, t_to, u):
        m, r = 0.5 * (t + t_to), 0.5 * (t_to - t)
        self.z += self.k * r * sum(w * u(m + r * x)[0] for x, w in _GL)

    # strong coupling: the state and its derivative
    def states(self):
        return [self.z]

    def set_states(self, t, x):
        self.z = x[0]

    def derivatives(self, t, u):
        return [self.k * u(t)[0]]

    def record(self):
        return {"z": self.z}
