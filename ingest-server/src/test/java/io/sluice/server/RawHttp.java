package io.sluice.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * HTTP over a plain socket, for requests no HTTP client sends (bad percent-escapes, unknown versions,
 * huge request lines) and for clients that misbehave (never read, never finish a request).
 */
public final class RawHttp {
    private RawHttp() {
    }

    /** A response as read off the socket: the status code, the head and the body (not de-chunked). */
    public record Response(int status, String head, String body) {
    }

    /** A connected socket to 127.0.0.1 with a read timeout of 30 s. */
    public static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", address.getPort()), 10_000);
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** Sends {@code request} (bytes as given, ISO-8859-1) on a new connection and reads until the server closes it. */
    public static Response exchange(InetSocketAddress address, String request) throws IOException {
        try (Socket socket = connect(address)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return parse(readUntilClosed(socket.getInputStream()));
        }
    }

    /** Everything until the peer closes (or 30 s pass without a byte: then what came). */
    public static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // return what came
        } catch (IOException e) {
            if (out.size() == 0) {
                throw e;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** True once the server closed {@code socket} (a read sees the end or a reset), waiting up to 30 s. */
    public static boolean closedByServer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[65536];
        try {
            while (in.read(buffer) >= 0) {
                // drain what came before the close
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) { // reset
            return true;
        }
    }

    private static Response parse(String text) {
        int end = text.indexOf("\r\n\r\n");
        String head = end < 0 ? text : text.substring(0, end);
        String body = end < 0 ? "" : text.substring(end + 4);
        int status = -1;
        if (head.startsWith("HTTP/") && head.length() >= 12) {
            status = Integer.parseInt(head.substring(9, 12));
        }
        return new Response(status, head, body);
    }
}
