/**
 * The embeddings seam: {@link io.reme.embedding.EmbeddingModel} turns texts into L2-normalised
 * vectors and names the model that made them. Two implementations pass the same contract tests:
 * {@link io.reme.embedding.LocalOnnxEmbeddingModel} (the default, offline: bge-small-en-v1.5 or
 * all-MiniLM-L6-v2, int8-quantised, in-process on ONNX Runtime) and {@link io.reme.embedding.OpenAiEmbeddingModel}
 * (any OpenAI-compatible {@code /embeddings} endpoint). The figures behind the choice of model
 * ({@code EmbeddingThroughput}, in the {@code bench} module) are in {@code docs/architecture.md}.
 */
package io.reme.embedding;
