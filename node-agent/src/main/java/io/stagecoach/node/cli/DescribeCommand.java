package io.stagecoach.node.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import io.stagecoach.protocol.datatype.Datatype;
import io.stagecoach.protocol.datatype.DatatypeException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stagecoach datatype describe}: parse a datatype expression, commit it and print what the engine makes of
 * it.
 */
@Command(
    name = "describe",
    mixinStandardHelpOptions = true,
    description = {
        "Build and commit a derived datatype from an expression and print its size, extent, bounds, element count, " +
            "type signature and compiled (vectorized) form.",
        "" },
    footer = {
        "",
        "Expressions (names are case-insensitive; displacements and strides in elements, h* ones in bytes;",
        "constructors nest at most " + TypeExpression.MAX_NESTING + " deep):",
        "  basic types: byte char short int long float double boolean packed",
        "  contiguous(count, type)            vector(count, blocklength, stride, type)",
        "  hvector(count, blocklength, stride_bytes, type)",
        "  indexed([blocklengths], [displacements], type)",
        "  hindexed([blocklengths], [displacements_bytes], type)",
        "  indexed_block(blocklength, [displacements], type)",
        "  hindexed_block(blocklength, [displacements_bytes], type)",
        "  struct([blocklengths], [displacements_bytes], [types])",
        "  subarray([sizes], [subsizes], [starts], C|F, type)",
        "  darray(size, rank, [gsizes], [block|block(k)|cyclic|cyclic(k)|none,...], [psizes], C|F, type)",
        "  resized(type, lb, extent)          dup(type)",
        "",
        "Examples:",
        "  stagecoach datatype describe 'vector(4, 2, 8, float)'",
        "  stagecoach datatype describe --segments 'subarray([128,128,128],[1,126,126],[126,1,1],C,float)'",
        "  stagecoach datatype describe --count 3 'struct([1,2],[0,8],[int,double])'" })
final class DescribeCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<type expression>",
        description = "The datatype, e.g. 'vector(4, 2, 8, float)'.")
    private String expression;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1",
        description = "Instances for the signature, the buffer span and the segments (default ${DEFAULT-VALUE}).")
    private long count;

    @Option(names = "--segments", description = "Also list the flattened segments of the packed stream.")
    private boolean segments;

    @Option(names = "--max-segments", paramLabel = "M", defaultValue = "64",
        description = "Most segments listed (default ${DEFAULT-VALUE}); all are counted.")
    private int maxSegments;

    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        if (count < 0 || maxSegments < 0)
        {
            err.println("stagecoach datatype describe: --count and --max-segments must not be negative (count " +
                count + ", max segments " + maxSegments + ")");
            return 2;
        }
        try
        {
            final Datatype type = TypeExpression.parse(expression).commit();
            new DatatypeDescription(expression, type, count).print(spec.commandLine().getOut(), segments, maxSegments);
            return 0;
        }
        catch (final TypeExpressionException ex)
        {
            err.println("stagecoach datatype describe: " + ex.getMessage());
            err.println("  " + ex.pointer().replace("\n", "\n  "));
            return 2;
        }
        catch (final DatatypeException | ArithmeticException ex)
        {
            err.println("stagecoach datatype describe: " + ex.getMessage());
            return 2;
        }
    }
}
