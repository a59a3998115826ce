package io.stagecoach.examples.lbm;

/**
 * The parameters of the free-energy binary fluid, as the collision kernel takes them (floats, worked out once on the
 * host so that a GPU and the emulated device use the same bits). The bulk free energy {@code a/4 (phi^2 - 1)^2} has its
 * minima at phi = +1 and -1 (the two phases, of equal density here), the gradient term {@code kappa/2 |grad phi|^2}
 * sets the interface: {@code tanh(z / w)} with {@code w = sqrt(2 kappa / a)}, the surface tension
 * {@code sqrt(8 kappa a / 9)}. Chemical potential {@code mu = a phi (phi^2 - 1) - kappa lap phi}; the force on the
 * fluid {@code mu grad phi}; g relaxes towards the equilibrium whose second moment is {@code gamma mu}, which gives
 * the Cahn-Hilliard equation with mobility {@code gamma (1/omegaG - 1/2) / 4}.
 *
 * @param a       bulk free-energy coefficient.
 * @param kappa   gradient coefficient.
 * @param omegaF  relaxation rate of f, 1/tau_f (kinematic viscosity (1/omegaF - 1/2) / 3).
 * @param omegaG  relaxation rate of g, 1/tau_g.
 * @param gamma   mobility coefficient of g's equilibrium.
 * @param forcing weight of Guo's forcing term, 1 - omegaF/2.
 */
record Physics(float a, float kappa, float omegaF, float omegaG, float gamma, float forcing)
{
    /**
     * The example's fluid: interface width 2 cells, tau_f = tau_g = 1, gamma = 0.1. The Cahn-Hilliard part is stable
     * only while the mobility times the stiffness of the shortest waves stays small: with gamma = 0.5 (mobility 0.25)
     * a droplet blows up within 200 steps; with 0.1 (mobility 0.05) it relaxes for thousands.
     */
    static Physics standard()
    {
        return of(0.04f, 0.08f, 1.0f, 1.0f, 0.1f);
    }

    /**
     * @param a     bulk free-energy coefficient, > 0.
     * @param kappa gradient coefficient, > 0.
     * @param tauF  relaxation time of f, > 1/2.
     * @param tauG  relaxation time of g, > 1/2.
     * @param gamma mobility coefficient, > 0.
     * @return the parameters.
     */
    static Physics of(final float a, final float kappa, final float tauF, final float tauG, final float gamma)
    {
        if (!(a > 0 && kappa > 0 && tauF > 0.5f && tauG > 0.5f && gamma > 0))
        {
            throw new IllegalArgumentException("physics needs a > 0, kappa > 0, tau_f > 1/2, tau_g > 1/2, gamma > 0: " +
                "a=" + a + " kappa=" + kappa + " tau_f=" + tauF + " tau_g=" + tauG + " gamma=" + gamma);
        }
        final float omegaF = 1.0f / tauF;
        return new Physics(a, kappa, omegaF, 1.0f / tauG, gamma, 1.0f - 0.5f * omegaF);
    }

    /**
     * @return width w of the equilibrium interface tanh(z / w), in cells.
     */
    double interfaceWidth()
    {
        return Math.sqrt(2.0 * kappa / a);
    }
}
