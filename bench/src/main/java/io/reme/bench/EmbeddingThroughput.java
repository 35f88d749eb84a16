package io.reme.bench;

import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LocalOnnxEmbeddingModel;
import io.reme.embedding.Vectors;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Measures a local embedding model: throughput (sentences per second over generated memory-like
 * sentences) and a small quality check (paraphrase pairs against unrelated pairs). A tool, not a
 * test: run it by hand, e.g.
 *
 * <pre>{@code
 * java -cp bench/target/reme-bench.jar io.reme.bench.EmbeddingThroughput [--variant bge|q|full|both] [--n 2000] [--batch 0] [--threads 0]
 *     [--rounds 3] [--short]
 * }</pre>
 */
public final class EmbeddingThroughput {
    private EmbeddingThroughput() {}

    /**
     * One timed run: {@code sentences} texts of {@code tokens} word pieces in all, in {@code nanos} of
     * wall time, using {@code cpuNanos} of this process's CPU time (all threads; -1 when unknown).
     */
    public record Throughput(int sentences, long tokens, long nanos, long cpuNanos) {
        public double sentencesPerSecond() {
            return sentences * 1e9 / nanos;
        }

        /** Sentences per second of CPU time: what one core would do if it had nothing else to run. */
        public double sentencesPerCpuSecond() {
            return cpuNanos <= 0 ? Double.NaN : sentences * 1e9 / cpuNanos;
        }

        /** CPU time over wall time: how many cores the run kept busy on average. */
        public double coresUsed() {
            return cpuNanos <= 0 ? Double.NaN : (double) cpuNanos / nanos;
        }

        public double tokensPerSecond() {
            return tokens * 1e9 / nanos;
        }
    }

    /**
     * Paraphrase pairs against unrelated pairs.
     *
     * @param paraphraseMean mean cosine of a sentence and its paraphrase
     * @param paraphraseMin the lowest such cosine
     * @param unrelatedMean mean cosine of a sentence and the other pairs' sentences
     * @param unrelatedMax the highest such cosine
     * @param rankedFirst share of sentences whose paraphrase is the nearest of all candidates
     */
    public record Quality(
            double paraphraseMean,
            double paraphraseMin,
            double unrelatedMean,
            double unrelatedMax,
            double rankedFirst) {}

    /** Sentence pairs that say the same thing in other words; different pairs are about different things. */
    public static final List<String[]> PARAPHRASES = List.of(
            new String[] {"The user prefers short answers.", "Alice likes replies to be brief."},
            new String[] {
                "Deploy the orders service to staging tomorrow.",
                "Tomorrow we roll out the order service on the staging environment."
            },
            new String[] {
                "The consumer was kicked out of the group because polling took too long.",
                "Slow polls made the coordinator evict the consumer from its group."
            },
            new String[] {"My daughter's birthday is on March 3rd.", "March 3 is when my girl turns a year older."},
            new String[] {"We decided to use PostgreSQL instead of MySQL.", "The team chose Postgres over MySQL."},
            new String[] {
                "The flight to Berlin leaves at 7 am.", "Our plane for Berlin departs at seven in the morning."
            },
            new String[] {"I am allergic to peanuts.", "Peanuts give me an allergic reaction."},
            new String[] {
                "Reduce max poll records to 100 to avoid rebalances.",
                "Lowering max.poll.records to one hundred stops the rebalancing."
            },
            new String[] {"The quarterly report is due on Friday.", "Friday is the deadline for the quarter's report."},
            new String[] {"She moved from Paris to Lisbon last year.", "Last year she relocated to Lisbon from Paris."},
            new String[] {"The build fails because a test times out.", "A timing-out test breaks the build."},
            new String[] {"Please remind me to call the dentist.", "Don't let me forget to phone my dentist."},
            new String[] {"He runs five kilometres every morning.", "Each morning he goes for a 5 km run."},
            new String[] {"The API key must never be logged.", "Never write the API key to the logs."},
            new String[] {
                "Our budget for the project is ten thousand euros.", "The project may cost at most 10,000 EUR."
            },
            new String[] {"The cat is sleeping on the sofa.", "A cat naps on the couch."},
            new String[] {"Invoices are paid within thirty days.", "We settle bills no later than a month after."},
            new String[] {
                "The meeting was moved to Thursday afternoon.", "We rescheduled the meeting for Thursday after lunch."
            },
            new String[] {"I switched my diet to vegetarian.", "I no longer eat meat."},
            new String[] {"The database backup runs nightly at 2 am.", "Every night at two, the DB is backed up."});

    /** Scores {@code model} on {@link #PARAPHRASES}. */
    public static Quality quality(EmbeddingModel model) throws EmbeddingException {
        List<String> firsts = new ArrayList<>();
        List<String> seconds = new ArrayList<>();
        for (String[] pair : PARAPHRASES) {
            firsts.add(pair[0]);
            seconds.add(pair[1]);
        }
        List<float[]> a = model.embed(firsts);
        List<float[]> b = model.embed(seconds);
        double paraphraseSum = 0;
        double paraphraseMin = 1;
        double unrelatedSum = 0;
        double unrelatedMax = -1;
        int unrelatedCount = 0;
        int first = 0;
        for (int i = 0; i < a.size(); i++) {
            double same = Vectors.dot(a.get(i), b.get(i));
            paraphraseSum += same;
            paraphraseMin = Math.min(paraphraseMin, same);
            boolean best = true;
            for (int j = 0; j < b.size(); j++) {
                if (j == i) {
                    continue;
                }
                double other = Vectors.dot(a.get(i), b.get(j));
                unrelatedSum += other;
                unrelatedMax = Math.max(unrelatedMax, other);
                unrelatedCount++;
                if (other >= same) {
                    best = false;
                }
            }
            if (best) {
                first++;
            }
        }
        return new Quality(
                paraphraseSum / a.size(),
                paraphraseMin,
                unrelatedSum / unrelatedCount,
                unrelatedMax,
                (double) first / a.size());
    }

    /** {@code n} memory-like English sentences of 6 to 40 words, the same for the same seed. */
    public static List<String> sentences(int n, long seed) {
        return sentences(n, seed, false);
    }

    /**
     * {@code n} memory-like English sentences, the same for the same seed: of 6 to 40 words, or with
     * {@code short_} of 4 to 8 words (about 10 word pieces).
     */
    public static List<String> sentences(int n, long seed, boolean short_) {
        String[] subjects = {
            "The user",
            "Alice",
            "Bob",
            "The team",
            "Our customer",
            "The agent",
            "My manager",
            "The on-call engineer",
            "She",
            "He",
            "The support bot",
            "The new intern"
        };
        String[] verbs = {
            "prefers",
            "decided to use",
            "asked about",
            "complained about",
            "wants to migrate",
            "scheduled",
            "reviewed",
            "postponed",
            "fixed",
            "needs help with",
            "mentioned",
            "forgot about"
        };
        String[] objects = {
            "the orders service",
            "a Kafka consumer group",
            "the quarterly budget",
            "the flight to Berlin",
            "a vegetarian recipe",
            "the staging cluster",
            "the dentist appointment",
            "PostgreSQL replication",
            "the marketing plan",
            "their daughter's birthday party",
            "a memory leak in the cache",
            "the invoice from last month",
            "the onboarding checklist",
            "the summary of yesterday's meeting",
            "a new laptop",
            "the release notes"
        };
        String[] tails = {
            "before the Friday deadline",
            "because the tests kept failing",
            "after a long discussion",
            "with a strict budget of ten thousand euros",
            "and wants a short answer",
            "in the morning",
            "for the third time this week",
            "since the last incident",
            "while travelling to Lisbon",
            "so that no order is lost or processed twice",
            "as discussed with the product owner",
            "and noted that latency must stay under two hundred milliseconds"
        };
        String[] fillers = {"really", "again", "quickly", "carefully", "finally", "probably", "still", "also"};
        Random random = new Random(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            StringBuilder s = new StringBuilder();
            s.append(subjects[random.nextInt(subjects.length)]).append(' ');
            if (random.nextBoolean()) {
                s.append(fillers[random.nextInt(fillers.length)]).append(' ');
            }
            s.append(verbs[random.nextInt(verbs.length)]).append(' ').append(objects[random.nextInt(objects.length)]);
            if (short_) {
                out.add(s.append('.').toString());
                continue;
            }
            int tailCount = random.nextInt(4);
            for (int t = 0; t < tailCount; t++) {
                s.append(' ').append(tails[random.nextInt(tails.length)]);
            }
            s.append(" (ticket ").append(1000 + random.nextInt(9000)).append(").");
            out.add(s.toString());
        }
        return out;
    }

    /** Embeds {@code sentences} once and times it. */
    public static Throughput measure(LocalOnnxEmbeddingModel model, List<String> sentences) throws EmbeddingException {
        long tokens = model.countTokens(sentences);
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        List<float[]> vectors = model.embed(sentences);
        long nanos = System.nanoTime() - start;
        long cpuNanos = cpuStart < 0 ? -1 : processCpuNanos() - cpuStart;
        if (vectors.size() != sentences.size()) {
            throw new IllegalStateException("got " + vectors.size() + " vectors for " + sentences.size() + " texts");
        }
        return new Throughput(sentences.size(), tokens, nanos, cpuNanos);
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        String variantArg = "bge";
        int n = 2000;
        int batch = 0;
        int threads = 0;
        int rounds = 3;
        boolean short_ = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--variant" -> variantArg = args[++i];
                case "--n" -> n = Integer.parseInt(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--short" -> short_ = true;
                default -> {
                    System.err.println(
                            "usage: EmbeddingThroughput [--variant bge|q|full|both] [--n 2000] [--batch 0 (the variant's default)] "
                                    + "[--threads 0] [--rounds 3] [--short]");
                    System.exit(2);
                }
            }
        }
        List<LocalOnnxEmbeddingModel.Variant> variants = switch (variantArg) {
            case "bge" -> List.of(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q);
            case "q" -> List.of(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2_Q);
            case "full" -> List.of(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2);
            case "both" ->
                List.of(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2_Q, LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2);
            default -> {
                System.err.println("unknown variant '" + variantArg + "'; available: bge, q, full, both");
                System.exit(2);
                yield List.of();
            }
        };
        List<String> sentences = sentences(n, 42, short_);
        System.out.printf(
                Locale.ROOT,
                "%d sentences, batch %s, threads %s, %d cores, load average %.2f%n",
                n,
                batch == 0 ? "default" : Integer.toString(batch),
                threads == 0 ? "auto" : threads,
                Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        List<List<float[]>> vectorsByVariant = new ArrayList<>();
        for (LocalOnnxEmbeddingModel.Variant variant : variants) {
            if (!variant.available()) {
                System.out.println(variant.modelName() + ": not on the classpath, skipped");
                continue;
            }
            long loadStart = System.nanoTime();
            try (LocalOnnxEmbeddingModel model = LocalOnnxEmbeddingModel.builder()
                    .variant(variant)
                    .batchSize(batch)
                    .threads(threads)
                    .build()) {
                long loadMillis = (System.nanoTime() - loadStart) / 1_000_000;
                model.embed(sentences.subList(0, Math.min(n, 100))); // warm-up
                System.out.printf(
                        Locale.ROOT, "%s: loaded in %d ms, batches of %d%n", model.id(), loadMillis, model.batchSize());
                for (int round = 1; round <= rounds; round++) {
                    Throughput t = measure(model, sentences);
                    System.out.printf(
                            Locale.ROOT,
                            "  round %d: %.0f sentences/s, %.0f tokens/s (%.1f tokens per "
                                    + "sentence); %.2f cores busy, %.0f sentences per CPU-second; load average %.2f%n",
                            round,
                            t.sentencesPerSecond(),
                            t.tokensPerSecond(),
                            (double) t.tokens() / t.sentences(),
                            t.coresUsed(),
                            t.sentencesPerCpuSecond(),
                            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                }
                Quality q = quality(model);
                System.out.printf(
                        Locale.ROOT,
                        "  quality: paraphrase cosine mean %.3f (min %.3f), unrelated mean %.3f "
                                + "(max %.3f), paraphrase ranked first %.0f%%%n",
                        q.paraphraseMean(),
                        q.paraphraseMin(),
                        q.unrelatedMean(),
                        q.unrelatedMax(),
                        100 * q.rankedFirst());
                List<String> sample = sentences.subList(0, Math.min(n, 200));
                List<float[]> batched = model.embed(sample);
                double minSelf = 1;
                double sumSelf = 0;
                for (int i = 0; i < sample.size(); i++) {
                    double c = Vectors.dot(batched.get(i), model.embed(sample.get(i)));
                    minSelf = Math.min(minSelf, c);
                    sumSelf += c;
                }
                System.out.printf(
                        Locale.ROOT,
                        "  batched vs one by one: cosine mean %.5f, lowest %.5f over %d " + "sentences%n",
                        sumSelf / sample.size(),
                        minSelf,
                        sample.size());
                vectorsByVariant.add(model.embed(sample));
            }
        }
        if (vectorsByVariant.size() == 2) {
            double sum = 0;
            double min = 1;
            List<float[]> a = vectorsByVariant.get(0);
            List<float[]> b = vectorsByVariant.get(1);
            for (int i = 0; i < a.size(); i++) {
                double c = Vectors.dot(a.get(i), b.get(i));
                sum += c;
                min = Math.min(min, c);
            }
            System.out.printf(
                    Locale.ROOT,
                    "quantized vs float32, same sentence: cosine mean %.4f, min %.4f%n",
                    sum / a.size(),
                    min);
        }
    }
}
