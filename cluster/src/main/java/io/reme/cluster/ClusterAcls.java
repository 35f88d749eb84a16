package io.reme.cluster;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs of {@code docker/acls.md}, as the cluster command applies them: each principal may do what
 * its role needs and nothing else ({@code allow.everyone.if.no.acl.found=false}). An agent's principal
 * writes {@code messages} and nothing more; only the application and the workers write results, diary
 * edits and memories.
 */
public final class ClusterAcls {
    private ClusterAcls() {}

    /**
     * @param prefix the topics' prefix ({@code reme.})
     * @param applicationId the Streams application id: its group, internal topics and transactional ids
     */
    public static List<AclBinding> bindings(String prefix, String applicationId) {
        List<AclBinding> acls = new ArrayList<>();
        // The application's instances: every role of one process (Streams, HTTP writes, the workspace watch,
        // embedded workers), so every prefix topic, its internal topics, group and transactions.
        String app = "reme-app";
        acls.addAll(allow(
                app,
                prefixed(ResourceType.TOPIC, prefix),
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.DESCRIBE,
                AclOperation.CREATE,
                AclOperation.DESCRIBE_CONFIGS));
        acls.addAll(allow(app, prefixed(ResourceType.TOPIC, applicationId + "-"), AclOperation.ALL));
        acls.addAll(allow(app, prefixed(ResourceType.GROUP, applicationId), AclOperation.READ));
        acls.addAll(allow(
                app,
                prefixed(ResourceType.TRANSACTIONAL_ID, applicationId),
                AclOperation.WRITE,
                AclOperation.DESCRIBE));

        String workers = "reme-workers";
        for (String topic : List.of("llm.requests", "diary", "memories.pending")) {
            acls.addAll(allow(
                    workers, literal(ResourceType.TOPIC, prefix + topic), AclOperation.READ, AclOperation.DESCRIBE));
        }
        for (String topic : List.of("llm.results", "diary.edits", "memories.pending", "memories", "dlq")) {
            acls.addAll(allow(
                    workers, literal(ResourceType.TOPIC, prefix + topic), AclOperation.WRITE, AclOperation.DESCRIBE));
        }
        acls.addAll(allow(workers, prefixed(ResourceType.GROUP, applicationId + "-"), AclOperation.READ));

        String connect = "reme-connect";
        for (String topic : List.of("dialog", "diary", "tool-results")) {
            acls.addAll(allow(
                    connect, literal(ResourceType.TOPIC, prefix + topic), AclOperation.READ, AclOperation.DESCRIBE));
        }
        acls.addAll(
                allow(connect, literal(ResourceType.TOPIC, prefix + "dlq"), AclOperation.WRITE, AclOperation.DESCRIBE));
        acls.addAll(allow(connect, prefixed(ResourceType.TOPIC, ConnectWorker.GROUP + "-"), AclOperation.ALL));
        acls.addAll(allow(connect, prefixed(ResourceType.GROUP, ConnectWorker.GROUP), AclOperation.READ));
        // A sink connector's consumer group is connect-<connector name>.
        acls.addAll(allow(connect, prefixed(ResourceType.GROUP, "connect-"), AclOperation.READ));

        acls.addAll(allow(
                "agents", literal(ResourceType.TOPIC, prefix + "messages"), AclOperation.WRITE, AclOperation.DESCRIBE));
        return acls;
    }

    private static List<AclBinding> allow(String user, ResourcePattern resource, AclOperation... operations) {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(
                    resource, new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW)));
        }
        return acls;
    }

    private static ResourcePattern literal(ResourceType type, String name) {
        return new ResourcePattern(type, name, PatternType.LITERAL);
    }

    private static ResourcePattern prefixed(ResourceType type, String name) {
        return new ResourcePattern(type, name, PatternType.PREFIXED);
    }
}
