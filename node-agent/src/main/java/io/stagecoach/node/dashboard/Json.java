package io.stagecoach.node.dashboard;

/**
 * JSON string literals for the dashboard's frames: quoted and escaped, with {@code <} and {@code >} escaped too, so
 * that no text of a job can close a script or a tag wherever a frame ends up.
 */
final class Json
{
    private Json()
    {
    }

    /**
     * @param to   where the literal goes.
     * @param text any text.
     */
    static void appendString(final StringBuilder to, final String text)
    {
        to.append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                to.append('\\').append(c);
            }
            else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            {
                to.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                to.append(c);
            }
        }
        to.append('"');
    }
}
