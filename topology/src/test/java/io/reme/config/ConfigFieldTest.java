package io.reme.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigFieldTest {
    /** Options as a configuration class declares them, with a constant that is not an option. */
    static final class Declared {
        static final ConfigField<String> FIRST = new ConfigField<>("t.first", "a", "First.", Parsers.text());
        static final String NOT_AN_OPTION = "t.other";
        private static final ConfigField<Integer> SECOND =
                new ConfigField<>("t.second", "1", "Second.", Parsers.intIn(0, 9));
        static final List<ConfigField<?>> FIELDS = ConfigField.declaredIn(Declared.class);
    }

    /** A list made before the option below it exists. */
    static final class ListTooEarly {
        static final List<ConfigField<?>> FIELDS = ConfigField.declaredIn(ListTooEarly.class);
        static final ConfigField<String> LATE = new ConfigField<>("t.late", "", "Late.", Parsers.text());
    }

    @Test
    void theOptionsAreTheConstantsInTheOrderDeclared() {
        assertEquals(List.of(Declared.FIRST, Declared.SECOND), Declared.FIELDS);
    }

    @Test
    void anOptionDeclaredAfterTheListIsRefusedByName() {
        Throwable failure = assertThrows(ExceptionInInitializerError.class, () -> ListTooEarly.FIELDS.size())
                .getCause();
        assertTrue(failure.getMessage().contains("ListTooEarly.LATE"), failure.getMessage());
    }

    @Test
    void appConfigListsEveryOptionItDeclares() {
        assertEquals(AppConfig.DATA_DIR, AppConfig.FIELDS.get(0));
        assertTrue(AppConfig.FIELDS.contains(AppConfig.HTTP_IDLE_TIMEOUT));
        assertTrue(AppConfig.FIELDS.contains(AppConfig.SEARCH_MAX_QUERY_TERMS));
        assertEquals(
                AppConfig.FIELDS.size(), AppConfig.FIELDS.stream().distinct().count());
    }
}
