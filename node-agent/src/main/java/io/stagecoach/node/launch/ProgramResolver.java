package io.stagecoach.node.launch;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks, before any process starts, that a program names a class with {@code public static void main(String[])}
 * on the rank class path, so that a typo fails once with a clear message instead of once per rank.
 */
final class ProgramResolver
{
    private final String classPath;

    ProgramResolver(final String classPath)
    {
        this.classPath = classPath;
    }

    String resolve(final String program)
    {
        final String mainClass = BuiltInPrograms.mainClassOf(program);
        try (URLClassLoader loader = new URLClassLoader(urls(), ClassLoader.getPlatformClassLoader()))
        {
            final Class<?> type = Class.forName(mainClass, false, loader);
            final Method main = type.getMethod("main", String[].class);
            if (!Modifier.isStatic(main.getModifiers()))
            {
                throw new LaunchException("program " + mainClass + " has a main method that is not static");
            }
            return mainClass;
        }
        catch (final ClassNotFoundException | NoClassDefFoundError ex)
        {
            throw new LaunchException(notFound(program, mainClass), ex);
        }
        catch (final UnsupportedClassVersionError ex)
        {
            throw new LaunchException("program " + mainClass + " was compiled for a newer Java than this one, " +
                "Java " + Runtime.version().feature() + " (" + ex.getMessage() + ")", ex);
        }
        catch (final LinkageError ex)
        {
            // a class file that does not load must end this job, not the process that launches it (an agent)
            throw new LaunchException("program " + mainClass + " cannot be loaded: " + ex, ex);
        }
        catch (final NoSuchMethodException ex)
        {
            throw new LaunchException("program " + mainClass + " has no public static void main(String[])", ex);
        }
        catch (final IOException ex)
        {
            throw new LaunchException("could not read the rank class path: " + ex, ex);
        }
    }

    private String notFound(final String program, final String mainClass)
    {
        if (BuiltInPrograms.isBuiltIn(program))
        {
            return "built-in program '" + program + "' needs class " + mainClass + ", which is not on the class path " +
                "(build its module, benchmarks or examples/" + program + ", with mvn -B -DskipTests package)";
        }
        return "no program '" + program + "': it is neither a built-in (" + BuiltInPrograms.names() +
            ") nor a class on the class path";
    }

    private URL[] urls() throws MalformedURLException
    {
        final List<URL> urls = new ArrayList<>();
        for (final String entry : classPath.split(File.pathSeparator))
        {
            if (entry.isEmpty())
            {
                continue;
            }
            if (entry.endsWith("*"))
            {
                addJars(Path.of(entry.substring(0, entry.length() - 1)), urls);
            }
            else
            {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static void addJars(final Path directory, final List<URL> urls) throws MalformedURLException
    {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(directory, "*.{jar,JAR}"))
        {
            for (final Path jar : jars)
            {
                urls.add(jar.toUri().toURL());
            }
        }
        catch (final IOException ex)
        {
            // a missing wildcard directory adds nothing, as for the java launcher
        }
    }
}
