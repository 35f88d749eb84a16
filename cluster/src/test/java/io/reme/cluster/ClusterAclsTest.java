package io.reme.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/** The ACL table as bindings: who may write what, read against the walls {@code docker/acls.md} promises. */
class ClusterAclsTest {
    private static final List<AclBinding> ACLS = ClusterAcls.bindings("reme.", "reme-streams");

    @Test
    void agentsMayWriteMessagesAndNothingElse() {
        Set<String> granted = ACLS.stream()
                .filter(acl -> acl.entry().principal().equals("User:agents"))
                .map(acl -> acl.pattern().resourceType() + " " + acl.pattern().patternType() + " "
                        + acl.pattern().name() + " " + acl.entry().operation())
                .collect(Collectors.toSet());
        assertEquals(Set.of("TOPIC LITERAL reme.messages WRITE", "TOPIC LITERAL reme.messages DESCRIBE"), granted);
    }

    @Test
    void onlyTheApplicationAndTheWorkersWriteResultsEditsAndMemories() {
        for (String topic : List.of("reme.llm.results", "reme.diary.edits", "reme.memories", "reme.memories.pending")) {
            Set<String> writers = ACLS.stream()
                    .filter(acl -> acl.pattern().resourceType() == ResourceType.TOPIC)
                    .filter(acl -> acl.entry().operation() == AclOperation.WRITE
                            || acl.entry().operation() == AclOperation.ALL)
                    .filter(acl -> covers(acl, topic))
                    .map(acl -> acl.entry().principal())
                    .collect(Collectors.toSet());
            assertEquals(Set.of("User:reme-app", "User:reme-workers"), writers, topic);
        }
    }

    @Test
    void connectReadsOnlyWhatItWritesToFiles() {
        Set<String> read = ACLS.stream()
                .filter(acl -> acl.entry().principal().equals("User:reme-connect"))
                .filter(acl -> acl.pattern().resourceType() == ResourceType.TOPIC)
                .filter(acl -> acl.entry().operation() == AclOperation.READ)
                .map(acl -> acl.pattern().name())
                .collect(Collectors.toSet());
        assertEquals(Set.of("reme.dialog", "reme.diary", "reme.tool-results"), read);
        assertFalse(
                ACLS.stream()
                        .filter(acl -> acl.entry().principal().equals("User:reme-connect"))
                        .anyMatch(acl -> covers(acl, "reme.messages") || covers(acl, "reme.memories")),
                "Connect reaches neither messages nor memories");
    }

    @Test
    void noPrincipalButTheApplicationJoinsItsGroup() {
        Set<String> members = ACLS.stream()
                .filter(acl -> acl.pattern().resourceType() == ResourceType.GROUP)
                .filter(acl -> covers(acl, "reme-streams"))
                .map(acl -> acl.entry().principal())
                .collect(Collectors.toSet());
        assertEquals(Set.of("User:reme-app"), members);
        assertTrue(ACLS.stream().allMatch(acl -> acl.entry().host().equals("*")));
    }

    private static boolean covers(AclBinding acl, String name) {
        return acl.pattern().patternType() == PatternType.PREFIXED
                ? name.startsWith(acl.pattern().name())
                : name.equals(acl.pattern().name());
    }
}
