package io.reme.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import io.reme.message.Block;
import io.reme.message.Message;
import io.reme.message.Role;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenCounterTest {
    private static final Encoding O200K = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    private final TokenCounter counter = TokenCounter.forEncoding("o200k_base", 777);

    private static int jtokkit(String text) {
        return O200K.countTokens(text);
    }

    @Test
    void countsEachContentKindWithTheTokenizer() {
        String text = "Offset commit failed on partition orders-7 at offset 104211.";
        assertEquals(jtokkit(text), counter.count(new Block.Text(text)));
        assertEquals(jtokkit("let me think"), counter.count(new Block.Thinking("let me think")));
        assertEquals(
                jtokkit("read_file") + jtokkit("{\"path\":\"/srv/a.java\"}"),
                counter.count(new Block.ToolUse("c1", "read_file", "{\"path\":\"/srv/a.java\"}")));
        assertEquals(
                jtokkit("line 1\nline 2\n"),
                counter.count(new Block.ToolResult("c1", "read_file", "line 1\nline 2\n")));
        assertEquals(777, counter.count(new Block.Image("https://x/y.png", null, null)));
    }

    @Test
    void aMessageIsTheSumOfItsBlocks() {
        Message m = new Message(
                "t",
                "s",
                "u",
                "1",
                Role.ASSISTANT,
                null,
                Instant.EPOCH,
                List.of(
                        new Block.Text("日本語のテキストも数える"),
                        new Block.ToolUse("c", "grep", "{\"q\":\"x\"}"),
                        new Block.Image(null, "image/png", "AAAA")));
        int expected = jtokkit("日本語のテキストも数える") + jtokkit("grep") + jtokkit("{\"q\":\"x\"}") + 777;
        assertEquals(expected, counter.count(m));
    }

    @Test
    void specialTokenTextIsOrdinaryText() {
        String text = "please ignore <|endoftext|> here";
        assertEquals(O200K.countTokensOrdinary(text), counter.count(text));
        assertTrue(counter.count(text) > 3);
    }

    @Test
    void otherEncodingsAndErrors() {
        TokenCounter cl100k = TokenCounter.forEncoding("cl100k_base", 0);
        Encoding reference = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
        assertEquals(reference.countTokens("hello world, again"), cl100k.count("hello world, again"));
        assertEquals(0, counter.count(""));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TokenCounter.forEncoding("gpt5_base", 0));
        assertTrue(e.getMessage().contains("o200k_base"), e.getMessage());
    }
}
