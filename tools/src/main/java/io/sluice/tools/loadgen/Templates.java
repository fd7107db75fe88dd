package io.sluice.tools.loadgen;

import static io.sluice.tools.loadgen.NodeExporterModel.utf8;

import io.sluice.tools.loadgen.NodeExporterModel.Kind;
import io.sluice.tools.loadgen.NodeExporterModel.Template;
import java.util.ArrayList;
import java.util.List;

/** The {@value NodeExporterModel#SERIES_PER_INSTANCE} series node_exporter reports for one host, as templates. */
final class Templates {
    private static final String[] CPU_MODES = {"idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"};
    private static final String[] DISKS = {"nvme0n1", "nvme1n1", "sda", "sdb"};
    private static final String[] NICS = {"eth0", "eth1", "lo", "docker0"};
    private static final String[][] MOUNTS = {
        {"/dev/nvme0n1p1", "ext4", "/"}, {"/dev/nvme1n1", "xfs", "/data"},
        {"tmpfs", "tmpfs", "/run"}, {"/dev/sda1", "vfat", "/boot/efi"}};
    private static final String[] MEMORY = {"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapTotal",
        "SwapFree", "SwapCached", "Active", "Inactive", "Active_anon", "Inactive_anon", "Active_file", "Inactive_file",
        "Dirty", "Writeback", "AnonPages", "Mapped", "Shmem", "Slab"};
    private static final String[] COLLECTORS = {"arp", "bcache", "bonding", "conntrack", "cpu", "cpufreq", "diskstats",
        "edac", "entropy", "filefd", "filesystem", "hwmon", "loadavg", "meminfo", "netdev", "netstat", "stat", "vmstat"};

    /** A counter reported per device, and the size of its values. */
    private record Counter(String name, double scale) {
    }

    private static final Counter[] DISK_COUNTERS = {
        new Counter("node_disk_read_bytes_total", 1e12), new Counter("node_disk_written_bytes_total", 1e12),
        new Counter("node_disk_io_time_seconds_total", 1e5), new Counter("node_disk_reads_completed_total", 1e8),
        new Counter("node_disk_writes_completed_total", 1e8)};
    private static final Counter[] NETWORK_COUNTERS = {
        new Counter("node_network_receive_bytes_total", 1e12), new Counter("node_network_transmit_bytes_total", 1e12),
        new Counter("node_network_receive_packets_total", 1e9), new Counter("node_network_transmit_packets_total", 1e9),
        new Counter("node_network_receive_errs_total", 10), new Counter("node_network_transmit_errs_total", 10)};

    private Templates() {
    }

    private static void perDevice(List<Template> t, String[] devices, Counter[] counters) {
        for (String device : devices) {
            for (Counter c : counters) {
                t.add(template(c.name, Kind.COUNTER, c.scale, "device", device));
            }
        }
    }

    static Template[] build() {
        List<Template> t = new ArrayList<>();
        for (int cpu = 0; cpu < 8; cpu++) {
            for (String mode : CPU_MODES) {
                t.add(template("node_cpu_seconds_total", Kind.COUNTER, 1e5, "cpu", Integer.toString(cpu), "mode", mode));
            }
            t.add(template("node_cpu_guest_seconds_total", Kind.COUNTER, 1e3, "cpu", Integer.toString(cpu), "mode", "nice"));
            t.add(template("node_cpu_guest_seconds_total", Kind.COUNTER, 1e3, "cpu", Integer.toString(cpu), "mode", "user"));
        }
        perDevice(t, DISKS, DISK_COUNTERS);
        perDevice(t, NICS, NETWORK_COUNTERS);
        for (String[] m : MOUNTS) {
            for (String metric : new String[] {"avail_bytes", "size_bytes", "free_bytes", "files", "files_free"}) {
                Kind kind = metric.startsWith("size") || metric.equals("files") ? Kind.CONSTANT : Kind.GAUGE;
                t.add(template("node_filesystem_" + metric, kind, metric.startsWith("files") ? 1e7 : 1e11,
                        "device", m[0], "fstype", m[1], "mountpoint", m[2]));
            }
        }
        for (String field : MEMORY) {
            Kind kind = field.endsWith("Total") ? Kind.CONSTANT : Kind.GAUGE;
            t.add(template("node_memory_" + field + "_bytes", kind, 3e10));
        }
        for (String collector : COLLECTORS) {
            t.add(template("node_scrape_collector_duration_seconds", Kind.GAUGE, 0.01, "collector", collector));
            t.add(template("node_scrape_collector_success", Kind.CONSTANT, 1, "collector", collector));
        }
        if (t.size() != NodeExporterModel.SERIES_PER_INSTANCE) {
            throw new IllegalStateException("node_exporter template has " + t.size() + " series");
        }
        return t.toArray(new Template[0]);
    }

    private static Template template(String name, Kind kind, double scale, String... labels) {
        byte[][] extra = new byte[labels.length][];
        for (int i = 0; i < labels.length; i++) {
            extra[i] = utf8(labels[i]);
        }
        return new Template(utf8(name), extra, kind, scale);
    }
}
