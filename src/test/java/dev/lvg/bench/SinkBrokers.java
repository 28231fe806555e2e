package dev.lvg.bench;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * What {@code bench/sinks.sh} needs of Kafka besides its broker: a cluster id to format the
 * broker's storage with ({@code cluster-id}), and the topic the gateway publishes into ({@code
 * topic <bootstrap> <name> <partitions>}).
 */
public final class SinkBrokers {
  private SinkBrokers() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("cluster-id")) {
      System.out.println(Uuid.randomUuid());
      return;
    }
    Properties properties = new Properties();
    properties.put("bootstrap.servers", args[1]);
    try (Admin admin = Admin.create(properties)) {
      admin
          .createTopics(List.of(new NewTopic(args[2], Integer.parseInt(args[3]), (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }
}
