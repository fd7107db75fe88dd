package io.sluice.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads a YAML configuration file into flat settings, keeping each value's line for messages.
 * Nesting and dotted keys mean the same: {@code http: {port: 8080}} and {@code http.port: 8080}
 * both give {@code http.port}. A list of scalars becomes a comma-separated value (bootstrap
 * servers); {@code kafka.topics} is a map of topic to format.
 */
final class YamlSettings {
    private final String fileName;
    private final List<Setting> settings = new ArrayList<>();

    private YamlSettings(String fileName) {
        this.fileName = fileName;
    }

    static List<Setting> read(Path file) throws ConfigException {
        YamlSettings yaml = new YamlSettings(file.getFileName().toString());
        Optional<Node> root;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = new Compose(LoadSettings.builder().setLabel(file.toString()).build()).composeReader(reader);
        } catch (NoSuchFileException e) {
            throw new ConfigException("configuration file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        } catch (MarkedYamlEngineException e) {
            throw new ConfigException(yaml.fileName + yaml.at(e.getProblemMark()) + ": not valid YAML: "
                    + e.getProblem().strip());
        } catch (YamlEngineException e) {
            throw new ConfigException(yaml.fileName + ": not valid YAML: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root.isPresent()) {
            if (!(root.get() instanceof MappingNode mapping)) {
                throw new ConfigException(yaml.fileName + yaml.at(root.get().getStartMark())
                        + ": the configuration must be a map of keys to values");
            }
            yaml.flatten("", mapping);
        }
        return yaml.settings;
    }

    private void flatten(String prefix, MappingNode mapping) throws ConfigException {
        for (NodeTuple tuple : mapping.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
                throw new ConfigException(fileName + at(tuple.getKeyNode().getStartMark()) + ": keys must be plain names");
            }
            String key = prefix + keyNode.getValue();
            Node value = tuple.getValueNode();
            String source = fileName + " line " + line(keyNode.getStartMark());
            if (value instanceof MappingNode child && (key.equals(ConfigKey.KAFKA_TOPICS.key())
                    || key.equals(ConfigKey.STORE_EXTERNAL_LABELS.key()))) {
                settings.add(new Setting(key, pairs(key, child), source));
            } else if (value instanceof MappingNode child) {
                flatten(key + ".", child);
            } else if (value instanceof SequenceNode sequence) {
                settings.add(new Setting(key, joined(key, sequence), source));
            } else {
                settings.add(new Setting(key, scalar(value), source));
            }
        }
    }

    /**
     * A map as {@code name=value,...}: {@code kafka.topics} (topic names cannot hold ',' or '=', Kafka
     * allows [a-zA-Z0-9._-]) and {@code store.external-labels}.
     */
    private String pairs(String key, MappingNode map) throws ConfigException {
        StringJoiner joined = new StringJoiner(",");
        for (NodeTuple tuple : map.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode topic) || !(tuple.getValueNode() instanceof ScalarNode format)) {
                throw new ConfigException(fileName + at(tuple.getKeyNode().getStartMark())
                        + ": " + key + " maps names to plain values");
            }
            joined.add(topic.getValue() + "=" + format.getValue());
        }
        return joined.toString();
    }

    private String joined(String key, SequenceNode sequence) throws ConfigException {
        StringJoiner joined = new StringJoiner(",");
        for (Node item : sequence.getValue()) {
            if (!(item instanceof ScalarNode)) {
                throw new ConfigException(fileName + at(item.getStartMark()) + ": " + key + ": a list may only hold plain values");
            }
            joined.add(scalar(item));
        }
        return joined.toString();
    }

    private static String scalar(Node node) {
        ScalarNode scalar = (ScalarNode) node;
        return Tag.NULL.equals(scalar.getTag()) ? "" : scalar.getValue();
    }

    private String at(Optional<Mark> mark) {
        return mark.map(m -> ":" + (m.getLine() + 1) + ":" + (m.getColumn() + 1)).orElse("");
    }

    private static int line(Optional<Mark> mark) {
        return mark.map(m -> m.getLine() + 1).orElse(0);
    }
}
