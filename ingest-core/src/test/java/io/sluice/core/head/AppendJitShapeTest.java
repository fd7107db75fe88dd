package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The shape the JIT sees of the run append ({@link SeriesStore#appendRun}), read from the compiled
 * class: the per-chunk work (block allocation, cut, closed list, chunk sink, grow copy) and the
 * per-run wrap of the appender are one out-of-line method, {@code chunkStep}, with more bytecode than C2 inlines
 * at a hot call site ({@code FreqInlineSize}), so C2 compiles it on its own whatever it compiled
 * first, and {@code appendRun}'s own calls are only the hot loop's. A refactoring that shrinks
 * {@code chunkStep} under the limit, or calls per-chunk work from the loop directly, fails here.
 */
class AppendJitShapeTest {

    @Test
    void theChunkStepIsTooBigForC2ToInlineIntoTheRunLoop() throws IOException {
        assertThat(codeLength(method("chunkStep"))).as("chunkStep bytecode bytes vs FreqInlineSize")
                .isGreaterThan(freqInlineSize());
    }

    /**
     * The closed list's append, whose growth branch is decided per series (so a compile made while a
     * replay cuts every series' first chunk sees one outcome only), is compiled on its own too: inlined
     * into {@code chunkStep}'s large graph, C2 may compile the other outcome's trap with action "none"
     * and every later cut then runs through the interpreter (see {@link ClosedChunkLists#add}).
     */
    @Test
    void theClosedListAppendIsTooBigForC2ToInlineIntoTheCutPath() throws IOException {
        assertThat(codeLength(method(ClosedChunkLists.class, "add"))).as("ClosedChunkLists.add bytecode bytes vs FreqInlineSize")
                .isGreaterThan(freqInlineSize());
    }

    @Test
    void theRunLoopCallsNoPerChunkWorkDirectly() throws IOException {
        Set<String> calls = new TreeSet<>();
        method("appendRun").code().orElseThrow().forEach(e -> {
            if (e instanceof InvokeInstruction call) {
                calls.add(call.owner().asSymbol().displayName() + "." + call.name().stringValue());
            }
        });
        assertThat(calls).contains("SeriesStore.chunkStep", "XorAppender.appendRun")
                .doesNotContain("ChunkMemory.allocate", "ChunkMemory.copy", "ChunkMemory.free", "SeriesStore.closeOpen",
                        "SeriesStore.replaceOpenBlock", "XorAppender.append", "SeriesStore.wrapOpen", "XorAppender.wrap",
                        "ClosedChunkLists.add", "SeriesStore$ChunkSink.persist");
    }

    private static int freqInlineSize() {
        return Integer.parseInt(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .getVMOption("FreqInlineSize").getValue());
    }

    private static MethodModel method(String name) throws IOException {
        return method(SeriesStore.class, name);
    }

    private static MethodModel method(Class<?> owner, String name) throws IOException {
        try (InputStream in = owner.getResourceAsStream(owner.getSimpleName() + ".class")) {
            ClassModel model = ClassFile.of().parse(in.readAllBytes());
            return model.methods().stream().filter(m -> m.methodName().equalsString(name)).findFirst().orElseThrow();
        }
    }

    private static int codeLength(MethodModel method) {
        return ((CodeAttribute) method.code().orElseThrow()).codeLength();
    }
}
