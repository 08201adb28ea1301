/* FPBench's (salsa) PID controller as C: 200 loop iterations, one float condition each. */
double pid(double m, double kp, double ki, double kd, double c) {
    double dt = 0.5, invdt = 1 / dt;
    double e = 0.0, p = 0.0, i = 0.0, d = 0.0, r = 0.0, eold = 0.0, t = 0.0;
    while (t < 100.0) {
        e = c - m;
        p = kp * e;
        i = i + (ki * dt) * e;
        d = (kd * invdt) * (e - eold);
        r = (p + i) + d;
        m = m + 0.01 * r;
        eold = e;
        t = t + dt;
    }
    return m;
}
