package io.reme.app;

import io.reme.config.AppConfig;
import io.reme.config.ConfigException;
import io.reme.llm.RequestSecret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the deployment's request secret: the configured one; on the embedded default, the one kept in
 * {@code <data-dir>/request-secret} (generated on first start, readable by its owner only); a cluster
 * deployment must configure it, because every instance and worker has to share one.
 */
public final class RequestSecrets {
    public static final String FILE = "request-secret";
    private static final Logger LOG = LoggerFactory.getLogger(RequestSecrets.class);

    private RequestSecrets() {}

    /** @throws ConfigException for a cluster without a configured secret or an unreadable secret file */
    public static RequestSecret resolve(AppConfig config) {
        return RequestSecret.of(text(config));
    }

    /**
     * The secret's text, as {@link #resolve} finds it: for settings handed on as text (the dialog file
     * sink's {@code request.secret}). Never log it.
     *
     * @throws ConfigException for a cluster without a configured secret or an unreadable secret file
     */
    public static String text(AppConfig config) {
        Optional<RequestSecret> configured = config.configuredRequestSecret();
        if (configured.isPresent()) {
            return config.get(AppConfig.REQUEST_SECRET);
        }
        if (!config.embeddedBroker()) {
            throw new ConfigException(
                    List.of(AppConfig.REQUEST_SECRET.name() + " (" + AppConfig.REQUEST_SECRET.envName()
                            + "): required with reme.bootstrap.servers; every instance and worker of the deployment must share "
                            + "it, e.g. " + AppConfig.REQUEST_SECRET.envName() + "=$(openssl rand -hex 32)"));
        }
        try {
            return inDataDir(config.dataDir());
        } catch (IOException e) {
            throw new ConfigException(
                    List.of(config.dataDir().resolve(FILE) + ": cannot read or create the request " + "secret: " + e));
        }
    }

    /** The secret kept in {@code dataDir}, made on first use; the file is created 0600, never wider. */
    static String inDataDir(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        if (Files.exists(file)) {
            String existing = Files.readString(file, StandardCharsets.UTF_8).trim();
            if (existing.length() < RequestSecret.MIN_LENGTH) {
                throw new ConfigException(List.of(file + ": holds no valid request secret; delete it to make a new one "
                        + "(pending compactions are then re-requested after their timeout)"));
            }
            return existing;
        }
        Files.createDirectories(dataDir);
        String secret = RequestSecret.generate();
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            LOG.debug("no POSIX permissions on this file system for {}", file);
            Files.createFile(file);
        } catch (FileAlreadyExistsException e) {
            return inDataDir(dataDir);
        }
        Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
        LOG.info("request secret generated file={}", file);
        return secret;
    }
}
