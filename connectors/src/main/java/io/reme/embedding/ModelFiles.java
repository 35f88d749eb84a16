package io.reme.embedding;

import io.reme.embedding.LocalOnnxEmbeddingModel.Variant;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a {@link Variant} on the classpath, where its langchain4j artifact (a plain jar of
 * resources) puts them: the ONNX model, the tokenizer and the Maven metadata that names the jar's
 * version. Nothing is downloaded; a missing file is reported with the artifact to add.
 */
final class ModelFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ModelFiles.class);
    private static final String ARTIFACT_GROUP = "dev.langchain4j";

    private ModelFiles() {}

    /** Whether the variant's ONNX model is on the classpath. */
    static boolean available(Variant variant) {
        return ModelFiles.class.getClassLoader().getResource(variant.modelResource()) != null;
    }

    /** The bytes of the variant's ONNX model. */
    static byte[] model(Variant variant) throws EmbeddingException {
        String name = variant.modelResource();
        try (InputStream in = open(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + name + " from the classpath: " + e.getMessage(), false, e);
        } catch (UncheckedIOException e) {
            throw new EmbeddingException(e.getCause().getMessage(), false, e);
        }
    }

    /**
     * The variant's Hugging Face {@code tokenizer.json}, for the caller to close.
     *
     * @throws UncheckedIOException when it is not on the classpath
     */
    static InputStream tokenizer(Variant variant) {
        return open(variant.tokenizerResource());
    }

    /** The version of the jar that ships the model, from its Maven metadata; "unknown" without it. */
    static String artifactVersion(Variant variant) {
        String path = "META-INF/maven/" + ARTIFACT_GROUP + "/" + variant.artifactId() + "/pom.properties";
        try (InputStream in = ModelFiles.class.getClassLoader().getResourceAsStream(path)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isBlank()) {
                    return version.strip();
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot read {}", path, e);
        }
        return "unknown";
    }

    private static InputStream open(String name) {
        InputStream in = ModelFiles.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            String artifact = Arrays.stream(Variant.values())
                    .filter(v -> v.modelResource().equals(name)
                            || v.tokenizerResource().equals(name))
                    .map(v -> ARTIFACT_GROUP + ":" + v.artifactId())
                    .findFirst()
                    .orElse("the model's jar");
            throw new UncheckedIOException(new IOException(name + " is not on the classpath: add " + artifact));
        }
        return in;
    }
}
