package io.reme.provider.offline;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The items of one section: an ordered list without duplicates (by {@link Sentences#key}), each cut at
 * {@value #MAX_ITEM_CHARS} characters; in the Critical Context section an item already contained in
 * an earlier one is not repeated.
 */
final class Items {
    static final int MAX_ITEM_CHARS = 300;

    final List<String> list = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    private final Set<String> keySet = new HashSet<>();
    private final boolean skipContained;

    Items(boolean skipContained) {
        this.skipContained = skipContained;
    }

    void add(String item) {
        String text = Sentences.cut(Sentences.clean(item), MAX_ITEM_CHARS);
        if (text.isEmpty()) {
            return;
        }
        String key = Sentences.key(text);
        if (key.isEmpty() || keySet.contains(key)) {
            return;
        }
        if (skipContained) {
            for (String existing : keys) {
                if (Sentences.containsWord(existing, key)) {
                    return;
                }
            }
        }
        keySet.add(key);
        keys.add(key);
        list.add(text);
    }

    void addVerbatim(String item) {
        String key = Sentences.key(item);
        if (!key.isEmpty() && keySet.add(key)) {
            keys.add(key);
            list.add(item.strip());
        }
    }

    void removeFirst() {
        keySet.remove(keys.remove(0));
        list.remove(0);
    }
}
