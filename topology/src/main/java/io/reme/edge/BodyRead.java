package io.reme.edge;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.io.Content;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a body chunk by chunk as it arrives, asking Jetty to call again when more is there; no
 * thread waits in between. A failed read (the idle timeout, a client gone, past the size
 * limit: the server's SizeLimitHandler says 413) fails the exchange, and Jetty answers it through
 * JsonErrorHandler and closes the connection. Written out rather than Jetty's
 * {@code Content.Source.asByteArrayAsync}, which fails the request again after the caller has
 * ended the exchange (a race that left one connection in thirty open after its idle timeout).
 */
final class BodyRead implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(BodyRead.class);

    private final Exchange exchange;
    private final Executor workers;
    private final int maxBodyBytes;
    /** Called once the whole body is read, on the thread that read its last chunk. */
    private final Consumer<Exchange> read;

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    BodyRead(Exchange exchange, Executor workers, int maxBodyBytes, Consumer<Exchange> read) {
        this.exchange = exchange;
        this.workers = workers;
        this.maxBodyBytes = maxBodyBytes;
        this.read = read;
    }

    @Override
    public void run() {
        while (true) {
            Content.Chunk chunk = exchange.request().read();
            if (chunk == null) {
                exchange.request().demand(this);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                Throwable failure = chunk.getFailure();
                LOG.debug("request body not read path={} error={}", exchange.path(), failure.toString());
                workers.execute(() -> exchange.fail(failure));
                return;
            }
            try {
                ByteBuffer bytes = chunk.getByteBuffer();
                if (body.size() + bytes.remaining() > maxBodyBytes) {
                    workers.execute(() -> exchange.fail(new HttpException.RuntimeException(
                            413, "request body is larger than " + maxBodyBytes + " bytes")));
                    return;
                }
                byte[] copy = new byte[bytes.remaining()];
                bytes.get(copy);
                body.write(copy, 0, copy.length);
            } finally {
                chunk.release();
            }
            if (chunk.isLast()) {
                exchange.body(body.toByteArray());
                read.accept(exchange);
                return;
            }
        }
    }
}
