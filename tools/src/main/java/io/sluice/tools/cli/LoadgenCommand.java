package io.sluice.tools.cli;

import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import io.sluice.tools.loadgen.LoadgenResult;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code sluice loadgen}: produces realistic node-exporter-like metrics to any broker. */
@Command(name = "loadgen", mixinStandardHelpOptions = true,
        description = "Produces realistic node-exporter-like metrics to a Kafka topic, for benchmarks and tests.")
final class LoadgenCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--bootstrap-servers", required = true, paramLabel = "H:P", description = "Kafka brokers.")
    String bootstrapServers;

    @Option(names = "--topic", required = true, paramLabel = "T", description = "Topic to produce to.")
    String topic;

    @Option(names = "--format", required = true, paramLabel = "F", converter = FormatConverter.class,
            description = "Payload format: prometheus-remote-write, prometheus-remote-write-v2, sluice, influx, otlp or json.")
    PayloadFormat format;

    @Option(names = "--series", required = true, paramLabel = "N", description = "Distinct series.")
    int series;

    @Option(names = "--samples", required = true, paramLabel = "M", description = "Samples to produce in all.")
    long samples;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "0",
            description = "Samples per second; 0 (default) produces as fast as the broker takes them.")
    double rate;

    LoadgenCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        LoadgenConfig config;
        try {
            config = LoadgenConfig.of(bootstrapServers, topic, format, series, samples).withRate(rate);
        } catch (IllegalArgumentException e) {
            context.error("loadgen: " + e.getMessage());
            return ExitCodes.CONFIG;
        }
        LoadgenResult result;
        try {
            result = Loadgen.run(config);
        } catch (IllegalStateException e) { // the broker refused records, or the run was interrupted
            context.error("loadgen: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        context.out().println("loadgen: " + result.summary());
        context.out().flush();
        return ExitCodes.OK;
    }

    /** Picocli converter: a format's configuration name, with the list of names on error. */
    static final class FormatConverter implements ITypeConverter<PayloadFormat> {
        @Override
        public PayloadFormat convert(String value) {
            try {
                return PayloadFormat.fromConfigName(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
