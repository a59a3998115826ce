package io.stagecoach.node.deploy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code [Service]} section of a systemd unit file, as far as a test starts the service by hand from it: each
 * key with its values in the file's order (a key may come several times, as Environment= does).
 *
 * @param values the values of each key.
 */
record ServiceUnit(Map<String, List<String>> values)
{
    static ServiceUnit parse(final String unitFile)
    {
        final Map<String, List<String>> values = new LinkedHashMap<>();
        String section = "";
        for (final String raw : unitFile.split("\n"))
        {
            final String line = raw.strip();
            if (line.startsWith("[") && line.endsWith("]"))
            {
                section = line;
            }
            else if ("[Service]".equals(section) && !line.isEmpty() && !line.startsWith("#") && line.contains("="))
            {
                final int equals = line.indexOf('=');
                values.computeIfAbsent(line.substring(0, equals), k -> new ArrayList<>())
                    .add(line.substring(equals + 1));
            }
        }
        return new ServiceUnit(values);
    }

    /**
     * @return the key's last value.
     * @throws AssertionError where the unit lacks the key.
     */
    String value(final String key)
    {
        final List<String> all = values.get(key);
        if (all == null || all.isEmpty())
        {
            throw new AssertionError("the unit has no " + key + "=: " + values);
        }
        return all.get(all.size() - 1);
    }

    /**
     * @return the variables of its Environment= lines, each {@code NAME=value} with the quotes around it taken off
     * (the unit writes no other quoting).
     */
    List<String> environment()
    {
        final List<String> variables = new ArrayList<>();
        for (final String value : values.getOrDefault("Environment", List.of()))
        {
            final boolean quoted = value.length() > 1 && value.startsWith("\"") && value.endsWith("\"");
            variables.add(quoted ? value.substring(1, value.length() - 1) : value);
        }
        return variables;
    }

    /**
     * @return ExecStart= split into words (the unit writes no quoting there).
     */
    List<String> execStart()
    {
        return List.of(value("ExecStart").trim().split("\\s+"));
    }
}
