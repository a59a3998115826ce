package io.stagecoach.node.agent;

/**
 * JSON string literals, for the control socket's answers.
 */
public final class Json
{
    private Json()
    {
    }

    /**
     * @param text any text.
     * @return it as a JSON string, quoted and escaped.
     */
    public static String quote(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\')
            {
                out.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                out.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
