package io.reme.bench;

import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.Vectors;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Synthetic memories of one tenant for {@code bench search}, and questions about them.
 *
 * <p>A memory's text is built from phrases (who, what they did, about what, in which circumstances,
 * plus ticket numbers and amounts); objects are adjective x noun pairs and are drawn with a Zipf-like
 * skew, so some topics are frequent and most are rare, as in real memory stores. Embedding 10^6
 * texts with the local model would take about an hour here, so a memory's vector is not the model's
 * vector of its text but the normalised weighted sum of the model's vectors of its phrases (each
 * phrase embedded once, about two thousand of them) plus a little Gaussian noise: vectors live in the
 * model's space and sit near the texts they stand for ({@link #fidelity} measures how near), so the
 * HNSW graph has a realistic shape. Queries are real: their text is embedded by the model.
 */
public final class MemoryCorpus {
    static final String TENANT = "bench";
    private static final String[] PEOPLE = {
        "Alice",
        "Bob",
        "Carol",
        "Dan",
        "Erin",
        "Frank",
        "Grace",
        "Heidi",
        "Ivan",
        "Judy",
        "Mallory",
        "Niaj",
        "Olivia",
        "Peggy",
        "Rupert",
        "Sybil",
        "Trent",
        "Victor",
        "Walter",
        "Yuki",
        "Zhang Wei",
        "Priya",
        "Lars",
        "Fatima",
        "Mateo",
        "Chloe",
        "Omar",
        "Ingrid",
        "Kenji",
        "Amara",
        "The user",
        "The team",
        "Our customer",
        "The agent",
        "My manager",
        "The on-call engineer",
        "The support bot",
        "The new intern",
        "The landlord",
        "The doctor"
    };
    private static final String[] ACTIONS = {
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
        "forgot about",
        "is worried about",
        "booked",
        "cancelled",
        "paid for",
        "recommended",
        "is allergic to",
        "bought",
        "is learning",
        "wrote a report on",
        "presented",
        "debugged",
        "tested",
        "refused",
        "approved",
        "rolled back",
        "documented",
        "compared prices for",
        "signed up for"
    };
    private static final String[] ADJECTIVES = {
        "new",
        "old",
        "broken",
        "quarterly",
        "urgent",
        "shared",
        "vegetarian",
        "remote",
        "legacy",
        "weekly",
        "expensive",
        "cheap",
        "internal",
        "public",
        "encrypted",
        "slow",
        "nightly",
        "annual",
        "Italian",
        "electric",
        "second",
        "staging",
        "production",
        "personal",
        "family"
    };
    private static final String[] NOUNS = {
        "orders service",
        "Kafka consumer group",
        "budget",
        "flight to Berlin",
        "recipe",
        "cluster",
        "dentist appointment",
        "PostgreSQL replica",
        "marketing plan",
        "birthday party",
        "cache",
        "invoice",
        "onboarding checklist",
        "meeting notes",
        "laptop",
        "release notes",
        "gym membership",
        "car insurance",
        "tax return",
        "garden",
        "piano lessons",
        "hiking trip",
        "wedding",
        "apartment lease",
        "job interview",
        "book club",
        "mortgage",
        "vaccination",
        "coffee machine",
        "bicycle",
        "API gateway",
        "load balancer",
        "dashboard",
        "certificate",
        "backup job",
        "search index",
        "mobile app",
        "design review",
        "sprint planning",
        "database migration",
        "payment provider",
        "login page",
        "feature flag",
        "test suite",
        "build pipeline",
        "Docker image",
        "Kubernetes upgrade",
        "DNS record",
        "VPN",
        "password manager",
        "hotel in Lisbon",
        "train ticket",
        "conference talk",
        "podcast",
        "newsletter",
        "photo album",
        "dog",
        "cat",
        "school play",
        "violin",
        "tennis match",
        "marathon",
        "knee injury",
        "diet",
        "sleep schedule",
        "reading list",
        "spreadsheet",
        "contract",
        "salary review",
        "team offsite",
        "customer survey",
        "support ticket",
        "refund",
        "warehouse",
        "supplier",
        "shipping label",
        "printer",
        "headphones",
        "phone plan",
        "electricity bill"
    };
    private static final String[] CIRCUMSTANCES = {
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
        "and noted that latency must stay under two hundred milliseconds",
        "during the holidays",
        "after the kids were asleep",
        "on the way to work",
        "at the request of the finance team",
        "despite the rain",
        "with help from a colleague",
        "without telling anyone",
        "next month",
        "last weekend",
        "over the phone",
        "in a hurry",
        "to save money",
        "for health reasons",
        "because of the new regulation",
        "after reading a blog post",
        "when the server crashed at night",
        "together with the neighbours",
        "as a surprise"
    };
    private static final MemoryType[] TYPES = {
        MemoryType.PERSONAL,
        MemoryType.PERSONAL,
        MemoryType.PROCEDURAL,
        MemoryType.TOOL,
        MemoryType.DIARY_CHUNK,
        MemoryType.DIALOG_CHUNK,
        MemoryType.DIALOG_CHUNK
    };
    private static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");
    private static final double NOISE = 0.02;

    private final String modelId;
    private final int dimensions;
    private final float[][] people;
    private final float[][] actions;
    private final float[][] objects;
    private final float[][] circumstances;
    private final double[] objectCdf;

    private MemoryCorpus(
            String modelId,
            int dimensions,
            float[][] people,
            float[][] actions,
            float[][] objects,
            float[][] circumstances) {
        this.modelId = modelId;
        this.dimensions = dimensions;
        this.people = people;
        this.actions = actions;
        this.objects = objects;
        this.circumstances = circumstances;
        // Zipf-like (s = 1) popularity over the objects, in a fixed shuffled order.
        double[] weights = new double[objects.length];
        double total = 0;
        for (int i = 0; i < weights.length; i++) {
            weights[i] = 1.0 / (i + 1);
            total += weights[i];
        }
        this.objectCdf = new double[weights.length];
        double sum = 0;
        for (int i = 0; i < weights.length; i++) {
            sum += weights[i] / total;
            objectCdf[i] = sum;
        }
    }

    /** Embeds every phrase once with {@code model}. */
    public static MemoryCorpus embeddedWith(EmbeddingModel model) throws EmbeddingException {
        return new MemoryCorpus(
                model.id(),
                model.dimensions(),
                embed(model, List.of(PEOPLE)),
                embed(model, List.of(ACTIONS)),
                embed(model, objectPhrases()),
                embed(model, List.of(CIRCUMSTANCES)));
    }

    private static float[][] embed(EmbeddingModel model, List<String> texts) throws EmbeddingException {
        return model.embed(texts).toArray(new float[0][]);
    }

    private static List<String> objectPhrases() {
        List<String> out = new ArrayList<>(ADJECTIVES.length * NOUNS.length);
        for (String noun : NOUNS) {
            for (String adjective : ADJECTIVES) {
                out.add("the " + adjective + " " + noun);
            }
        }
        return out;
    }

    /** Phrases embedded by {@link #embeddedWith}. */
    public static int phraseCount() {
        return PEOPLE.length + ACTIONS.length + ADJECTIVES.length * NOUNS.length + CIRCUMSTANCES.length;
    }

    /** Memory number {@code n}: the same text and vector for the same n. */
    public MemoryRecord memory(long n) {
        Random random = new Random(n * 0x9E3779B97F4A7C15L + 17);
        int person = random.nextInt(PEOPLE.length);
        int action = random.nextInt(ACTIONS.length);
        int object = zipf(random);
        int circumstanceCount = random.nextInt(3);
        StringBuilder text = new StringBuilder();
        text.append(PEOPLE[person])
                .append(' ')
                .append(ACTIONS[action])
                .append(' ')
                .append(objectPhrase(object));
        float[] vector = new float[dimensions];
        add(vector, people[person], 1.0);
        add(vector, actions[action], 1.0);
        add(vector, objects[object], 2.0);
        for (int c = 0; c < circumstanceCount; c++) {
            int circumstance = random.nextInt(CIRCUMSTANCES.length);
            text.append(' ').append(CIRCUMSTANCES[circumstance]);
            add(vector, circumstances[circumstance], 0.7);
        }
        switch (random.nextInt(4)) {
            case 0 ->
                text.append(" (ticket ").append(1000 + random.nextInt(90000)).append(')');
            case 1 -> text.append(", about ").append(5 + random.nextInt(5000)).append(" euros");
            default -> {}
        }
        text.append('.');
        for (int d = 0; d < dimensions; d++) {
            vector[d] += (float) (random.nextGaussian() * NOISE);
        }
        Instant time = EPOCH.plus(Duration.ofMinutes(random.nextInt(2 * 365 * 24 * 60)));
        MemoryType type = TYPES[random.nextInt(TYPES.length)];
        return new MemoryRecord(
                "m" + n,
                new MemoryRecord.Owner(TENANT, "u" + random.nextInt(200), "s" + random.nextInt(20_000)),
                type,
                text.toString(),
                new MemoryRecord.Times(time, time, time),
                Map.of(),
                null,
                MemoryRecord.Versions.FIRST,
                null,
                MemoryRecord.Vectors.of(modelId, Vectors.normalize(vector)),
                List.of());
    }

    /** Question number {@code n} about the corpus, as an agent would ask it. */
    public String question(long n) {
        Random random = new Random(~n * 0xC2B2AE3D27D4EB4FL);
        String object = objectPhrase(zipf(random));
        String person = PEOPLE[random.nextInt(PEOPLE.length)];
        return switch (random.nextInt(5)) {
            case 0 -> "What did " + person + " say about " + object + "?";
            case 1 ->
                "Why was " + object + " "
                        + ACTIONS[random.nextInt(ACTIONS.length)].split(" ")[0] + "?";
            case 2 -> person + " " + ACTIONS[random.nextInt(ACTIONS.length)] + " " + object;
            case 3 -> "anything about " + object + " " + CIRCUMSTANCES[random.nextInt(CIRCUMSTANCES.length)];
            default -> "When is " + object.substring("the ".length()) + " due?";
        };
    }

    private String objectPhrase(int object) {
        return "the " + ADJECTIVES[object % ADJECTIVES.length] + " " + NOUNS[object / ADJECTIVES.length];
    }

    private int zipf(Random random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = objectCdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (objectCdf[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // Spread popularity ranks over the objects so popular ones are not all the same noun.
        return (int) ((lo * 7919L) % objectCdf.length);
    }

    private static void add(float[] into, float[] v, double weight) {
        for (int i = 0; i < into.length; i++) {
            into[i] += (float) (v[i] * weight);
        }
    }

    /**
     * Mean and lowest cosine between the synthetic vectors of memories {@code 0..n-1} and the
     * model's own vectors of their texts: how faithful the cheap corpus vectors are.
     */
    public double[] fidelity(EmbeddingModel model, int n) throws EmbeddingException {
        List<MemoryRecord> sample = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sample.add(memory(i));
        }
        List<float[]> real = model.embed(sample.stream().map(MemoryRecord::text).toList());
        double sum = 0;
        double min = 1;
        for (int i = 0; i < n; i++) {
            double c = Vectors.dot(real.get(i), sample.get(i).vector());
            sum += c;
            min = Math.min(min, c);
        }
        return new double[] {sum / n, min};
    }
}
