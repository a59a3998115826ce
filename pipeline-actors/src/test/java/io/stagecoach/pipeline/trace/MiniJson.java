package io.stagecoach.pipeline.trace;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON parser for tests (RFC 8259: objects, arrays, strings with escapes, numbers, literals): maps,
 * lists, strings, {@link BigDecimal}s, booleans and null. Fails naming the offset of anything else.
 */
final class MiniJson
{
    private final String text;
    private int at;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    static Object parse(final String text)
    {
        final MiniJson parser = new MiniJson(text);
        final Object value = parser.value();
        parser.space();
        parser.check(parser.at == text.length(), "text after the value");
        return value;
    }

    private Object value()
    {
        space();
        check(at < text.length(), "a value");
        final char c = text.charAt(at);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> object = new LinkedHashMap<>();
        at++;
        space();
        if (peek('}'))
        {
            return object;
        }
        do
        {
            space();
            final String key = string();
            space();
            expect(':');
            check(!object.containsKey(key), "no repeated key " + key);
            object.put(key, value());
            space();
        }
        while (peek(','));
        expect('}');
        return object;
    }

    private List<Object> array()
    {
        final List<Object> array = new ArrayList<>();
        at++;
        space();
        if (peek(']'))
        {
            return array;
        }
        do
        {
            array.add(value());
            space();
        }
        while (peek(','));
        expect(']');
        return array;
    }

    private String string()
    {
        expect('"');
        final StringBuilder out = new StringBuilder();
        while (true)
        {
            check(at < text.length(), "the end of a string");
            final char c = text.charAt(at++);
            if (c == '"')
            {
                return out.toString();
            }
            check(c >= 0x20, "no control character in a string");
            out.append(c == '\\' ? escape() : c);
        }
    }

    private char escape()
    {
        final char c = text.charAt(at++);
        return switch (c)
        {
            case '"', '\\', '/' -> c;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> unicode();
            default -> throw new IllegalArgumentException("bad escape \\" + c + " at " + at);
        };
    }

    private char unicode()
    {
        final char c = (char)Integer.parseInt(text.substring(at, at + 4), 16);
        at += 4;
        return c;
    }

    private BigDecimal number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        final String digits = text.substring(start, at);
        check(digits.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"), "a number");
        return new BigDecimal(digits);
    }

    private Object literal(final String word, final Object value)
    {
        check(text.startsWith(word, at), word);
        at += word.length();
        return value;
    }

    private void space()
    {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
    }

    private boolean peek(final char c)
    {
        if (at < text.length() && text.charAt(at) == c)
        {
            at++;
            return true;
        }
        return false;
    }

    private void expect(final char c)
    {
        check(peek(c), "'" + c + "'");
    }

    private void check(final boolean condition, final String expected)
    {
        if (!condition)
        {
            throw new IllegalArgumentException("expected " + expected + " at offset " + at + ": " +
                text.substring(Math.max(0, at - 20), Math.min(text.length(), at + 20)));
        }
    }
}
