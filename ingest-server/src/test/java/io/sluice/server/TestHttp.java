package io.sluice.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client for tests against a real port. */
public final class TestHttp {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private TestHttp() {
    }

    public static HttpResponse<String> get(InetSocketAddress address, String path) throws IOException, InterruptedException {
        return get(address, path, null);
    }

    public static HttpResponse<String> get(InetSocketAddress address, String path, String accept)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(address, path)).timeout(Duration.ofSeconds(30));
        if (accept != null) {
            request.header("Accept", accept);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    public static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    public static URI uri(InetSocketAddress address, String path) {
        return URI.create("http://127.0.0.1:" + address.getPort() + path);
    }

    /** The sum of the sample lines of {@code metric} that carry all of {@code labels} (like {@code shard="0"}), or NaN if none. */
    public static double sample(String scrape, String metric, String... labels) {
        double sum = Double.NaN;
        for (String line : scrape.split("\n")) {
            if (!line.startsWith(metric + "{") && !line.startsWith(metric + " ")) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                sum = Double.isNaN(sum) ? v : sum + v;
            }
        }
        return sum;
    }
}
