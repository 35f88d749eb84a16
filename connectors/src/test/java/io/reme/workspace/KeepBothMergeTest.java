package io.reme.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class KeepBothMergeTest {
    private static final String BASE = "# Long-term memory\n- likes tea\n";

    @Test
    void keepsTheHumansTextAndAppendsWhatTheModelAdded() {
        String human = "# Long-term memory\n- likes green tea\n- allergic to nuts\n";
        String model = "# Long-term memory\n- likes tea\n- lives in Kyoto\n";
        assertEquals(
                human + "\n" + String.format(KeepBothMerge.NOTE, 4) + "\n- lives in Kyoto\n",
                KeepBothMerge.merge(BASE, human, model, 4));
    }

    @Test
    void nothingNewFromTheModelLeavesTheHumanVersion() {
        String human = "# Long-term memory\n- likes coffee\n";
        assertEquals(human, KeepBothMerge.merge(BASE, human, BASE, 3));
        assertEquals(
                human, KeepBothMerge.merge(BASE, human, "# Long-term memory\n", 3), "a model deletion is not applied");
    }

    @Test
    void linesBothAddedAreNotDuplicated() {
        String human = "# Long-term memory\n- likes tea\n- lives in Kyoto";
        String model = "# Long-term memory\n- likes tea\n- lives in Kyoto\n- works on Kafka\n";
        assertEquals(
                human + "\n\n" + String.format(KeepBothMerge.NOTE, 7) + "\n- works on Kafka\n",
                KeepBothMerge.merge(BASE, human, model, 7));
    }
}
