package io.stagecoach.device;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a module of an application's kernels is made of: the PTX a CUDA device loads (a class path resource, as the
 * device layer keeps its own kernels) and, for the emulated device, a Java body per kernel that does the same work.
 * Given to {@link DeviceRuntime#loadModule(KernelSource)}.
 * <pre>
 * KernelSource source = KernelSource.named("lbm")
 *     .ptxResource(Lbm.class, "/io/example/lbm_kernels.ptx")
 *     .emulated("lbm_update", LbmJava::update);
 * </pre>
 */
public final class KernelSource
{
    private final String name;
    private final Map<String, EmulatedKernel> emulated = new LinkedHashMap<>();
    private Class<?> anchor;
    private String resource;
    private byte[] ptx;

    private KernelSource(final String name)
    {
        this.name = name;
    }

    /**
     * @param name of the module, for messages.
     * @return an empty source.
     */
    public static KernelSource named(final String name)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("a kernel module needs a name");
        }
        return new KernelSource(name);
    }

    /**
     * @param anchor   class whose loader finds the resource.
     * @param resource absolute resource name of the PTX text, read when a CUDA device loads the module.
     * @return this.
     */
    public KernelSource ptxResource(final Class<?> anchor, final String resource)
    {
        this.anchor = anchor;
        this.resource = resource;
        this.ptx = null;
        return this;
    }

    /**
     * @param text the PTX text itself.
     * @return this.
     */
    public KernelSource ptx(final byte[] text)
    {
        this.ptx = Arrays.copyOf(text, text.length + 1);
        this.anchor = null;
        this.resource = null;
        return this;
    }

    /**
     * @param kernel name of a kernel of the PTX.
     * @param body   what the emulated device runs for it.
     * @return this.
     */
    public KernelSource emulated(final String kernel, final EmulatedKernel body)
    {
        emulated.put(kernel, body);
        return this;
    }

    /**
     * @return the module's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the PTX text with a terminating NUL, as {@code cuModuleLoadData} takes it.
     * @throws DeviceException when no PTX was given or its resource cannot be read, naming it.
     */
    public byte[] ptx()
    {
        if (ptx != null)
        {
            return ptx.clone();
        }
        if (resource == null)
        {
            throw new DeviceException("kernel module " + name + " has no PTX for a CUDA device");
        }
        try (InputStream in = anchor.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new DeviceException("PTX resource " + resource + " of kernel module " + name +
                    " missing from the class path");
            }
            final byte[] text = in.readAllBytes();
            return Arrays.copyOf(text, text.length + 1);
        }
        catch (final IOException ex)
        {
            throw new DeviceException("cannot read PTX resource " + resource + " of kernel module " + name, ex);
        }
    }

    /**
     * @param kernel a kernel's name.
     * @return its Java body, or null when none was given.
     */
    public EmulatedKernel emulatedKernel(final String kernel)
    {
        return emulated.get(kernel);
    }

    /**
     * @return names of the kernels with a Java body, in the order given.
     */
    public Set<String> emulatedKernels()
    {
        return Collections.unmodifiableSet(emulated.keySet());
    }

    @Override
    public String toString()
    {
        return "kernel module " + name;
    }
}
