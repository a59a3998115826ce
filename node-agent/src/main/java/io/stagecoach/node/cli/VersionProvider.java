package io.stagecoach.node.cli;

import picocli.CommandLine;

final class VersionProvider implements CommandLine.IVersionProvider
{
    public String[] getVersion()
    {
        final String version = StagecoachCommand.class.getPackage().getImplementationVersion();
        return new String[]{
            "stagecoach " + (null == version ? "(development build)" : version),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.home") + ")" };
    }
}
