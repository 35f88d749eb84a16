package io.reme.edge;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * HTTP/1.1 over a plain socket, for what a well-behaved client cannot send: malformed requests,
 * half-sent ones, connections that say nothing.
 */
final class RawHttp {
    private RawHttp() {}

    /** What came back: the status line's code, the headers as sent, the body. */
    record Answer(int status, String headers, String body) {
        String header(String name) {
            for (String line : headers.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        JsonNode json() {
            try {
                return Json.MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + this, e);
            }
        }

        @Override
        public String toString() {
            return status + "\n" + headers + "\n\n" + body;
        }
    }

    /** Opens a connection to {@code 127.0.0.1:port}. */
    static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
        return socket;
    }

    /** Sends {@code request} as written and reads the answer until the server closes or the body is whole. */
    static Answer send(int port, String request, Duration timeout) throws IOException {
        try (Socket socket = connect(port)) {
            socket.setSoTimeout((int) timeout.toMillis());
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return read(socket.getInputStream());
        }
    }

    /**
     * Reads one answer: headers, then the body by Content-Length (or to the end of the stream); an interim
     * answer (1xx) is its headers only.
     */
    static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before the headers ended: " + head);
            }
            head.write(b);
            matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
        }
        String headers = head.toString(StandardCharsets.ISO_8859_1).trim();
        int status = Integer.parseInt(headers.split(" ", 3)[1]);
        Answer partial = new Answer(status, headers, "");
        String length = partial.header("Content-Length");
        byte[] body;
        if (status < 200) {
            // An interim answer (100 Continue) has no body; the final one follows.
            body = new byte[0];
        } else if (length != null) {
            body = in.readNBytes(Integer.parseInt(length));
        } else if ("chunked"
                .equals(String.valueOf(partial.header("Transfer-Encoding")).toLowerCase(Locale.ROOT))) {
            body = readChunked(in);
        } else {
            body = in.readAllBytes();
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line(in);
            int n = Integer.parseInt(size.split(";")[0].trim(), 16);
            if (n == 0) {
                line(in);
                return body.toByteArray();
            }
            body.write(in.readNBytes(n));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    /**
     * Waits until the server closes {@code socket} (a read returns end of stream or the connection is
     * reset), at most {@code limit}; the time it took, or null if it stayed open.
     */
    static Duration awaitClosed(Socket socket, Duration limit) throws IOException {
        long start = System.nanoTime();
        socket.setSoTimeout((int) limit.toMillis());
        try {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // An error answer (408) may come before the close; read past it.
            }
        } catch (SocketTimeoutException e) {
            return null;
        } catch (IOException e) {
            // reset by the server: closed as well
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
