package io.reme.ui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The memory browser's files, read once from the classpath folder {@code /ui} and kept in memory with
 * their content type and an ETag (a hash of the bytes). Only flat names of known kinds are served
 * ({@code app.js}, never {@code ../x} or {@code a/b}), so no request can reach another resource.
 * Thread-safe.
 */
public final class UiAssets {
    /** The page {@code /ui/} answers with. */
    public static final String INDEX = "index.html";

    /**
     * Scripts, styles, fetches and images from this origin only; no inline script or style, no
     * plugins, no framing, no base or form target elsewhere. Markdown is rendered by our own code
     * into elements, so the page needs nothing looser.
     */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none';"
            + " base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.(html|js|css|png|svg|ico)");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "png", "image/png",
            "svg", "image/svg+xml",
            "ico", "image/x-icon");

    private final String folder;
    private final Map<String, Optional<Asset>> cache = new ConcurrentHashMap<>();

    /** One file as served. */
    public record Asset(String name, String contentType, byte[] body, String etag) {}

    public UiAssets() {
        this("/ui/");
    }

    UiAssets(String folder) {
        this.folder = folder;
    }

    /** The file called {@code name}, or empty if there is none or the name is not one we serve. */
    public Optional<Asset> get(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        return cache.computeIfAbsent(name, this::load);
    }

    private Optional<Asset> load(String name) {
        try (InputStream in = UiAssets.class.getResourceAsStream(folder + name)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] body = in.readAllBytes();
            String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
            return Optional.of(new Asset(name, type, body, etag(body)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the browser file " + name, e);
        }
    }

    /**
     * The headers every browser file is sent with: the policy above, no content sniffing, no referrer
     * (hash routes hold no secrets, but other sites need not learn our paths), and {@code no-cache},
     * which lets the browser keep a copy but makes it ask (an ETag match is a cheap 304), so an
     * upgraded jar is seen at the next load.
     */
    public static Map<String, String> headers(Asset asset) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        headers.put("X-Frame-Options", "DENY");
        headers.put("Cache-Control", "no-cache");
        headers.put("ETag", asset.etag());
        return headers;
    }

    /** Whether an {@code If-None-Match} header names this version of the file. */
    public static boolean unchanged(Asset asset, String ifNoneMatch) {
        if (ifNoneMatch == null) {
            return false;
        }
        for (String tag : ifNoneMatch.split(",")) {
            String trimmed = tag.trim();
            if (trimmed.equals("*") || trimmed.equals(asset.etag()) || trimmed.equals("W/" + asset.etag())) {
                return true;
            }
        }
        return false;
    }

    private static String etag(byte[] body) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(body);
            return "\"" + HexFormat.of().formatHex(hash, 0, 12) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this runtime", e);
        }
    }
}
