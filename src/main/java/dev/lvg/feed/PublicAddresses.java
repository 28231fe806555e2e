package dev.lvg.feed;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Which addresses are public: not loopback, private, link-local (cloud metadata services live
 * there), carrier-grade NAT, unique-local, documentation, benchmarking, multicast, reserved or
 * unspecified. An IPv6 address that embeds or maps an IPv4 address (IPv4-compatible {@code ::/96},
 * mapped {@code ::ffff:0:0/96}, translated {@code ::ffff:0:0:0/96}, NAT64 {@code 64:ff9b::/96} and
 * {@code 64:ff9b:1::/48}, 6to4 {@code 2002::/16}, Teredo {@code 2001::/32}) is judged by the IPv4
 * addresses inside it, since that is where its packets end up.
 */
final class PublicAddresses {
  private PublicAddresses() {}

  static boolean isPublic(InetAddress address) {
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return isPublicV4(b);
    }
    return address instanceof Inet6Address && isPublicV6(b);
  }

  private static boolean isPublicV4(byte[] b) {
    int a0 = b[0] & 0xff;
    int a1 = b[1] & 0xff;
    int a2 = b[2] & 0xff;
    return a0 != 0 // this network
        && a0 != 10 // private
        && a0 != 127 // loopback
        && !(a0 == 100 && a1 >= 64 && a1 < 128) // carrier-grade NAT
        && !(a0 == 169 && a1 == 254) // link-local, cloud metadata
        && !(a0 == 172 && a1 >= 16 && a1 < 32) // private
        && !(a0 == 192 && a1 == 168) // private
        && !(a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) // protocol assignments, documentation
        && !(a0 == 192 && a1 == 88 && a2 == 99) // 6to4 relays
        && !(a0 == 198 && (a1 == 18 || a1 == 19)) // benchmarking
        && !(a0 == 198 && a1 == 51 && a2 == 100) // documentation
        && !(a0 == 203 && a1 == 0 && a2 == 113) // documentation
        && a0 < 224; // multicast, reserved, broadcast
  }

  private static boolean isPublicV6(byte[] b) {
    if (zero(b, 0, 12)) {
      return isPublicV4(v4(b, 12, 13, 14, 15)); // ::/96, with :: and ::1
    }
    if (zero(b, 0, 10) && ones(b, 10, 12)) {
      return isPublicV4(v4(b, 12, 13, 14, 15)); // ::ffff:0:0/96
    }
    if (zero(b, 0, 8) && ones(b, 8, 10) && zero(b, 10, 12)) {
      return isPublicV4(v4(b, 12, 13, 14, 15)); // ::ffff:0:0:0/96
    }
    if (starts(b, 0x00, 0x64, 0xff, 0x9b) && zero(b, 4, 12)) {
      return isPublicV4(v4(b, 12, 13, 14, 15)); // 64:ff9b::/96
    }
    if (starts(b, 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01)) {
      return isPublicV4(v4(b, 6, 7, 9, 10)); // 64:ff9b:1::/48, around the u octet
    }
    if (starts(b, 0x20, 0x02)) {
      return isPublicV4(v4(b, 2, 3, 4, 5)); // 6to4
    }
    if (starts(b, 0x20, 0x01, 0x00, 0x00)) {
      // Teredo: the server's address, and the client's stored inverted.
      byte[] client = v4(b, 12, 13, 14, 15);
      for (int i = 0; i < 4; i++) {
        client[i] = (byte) ~client[i];
      }
      return isPublicV4(v4(b, 4, 5, 6, 7)) && isPublicV4(client);
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    return (first & 0xfe) != 0xfc // unique-local fc00::/7
        && !(first == 0xfe && (second & 0xc0) == 0x80) // link-local fe80::/10
        && !(first == 0xfe && (second & 0xc0) == 0xc0) // site-local fec0::/10
        && first != 0xff // multicast
        && !(starts(b, 0x01, 0x00) && zero(b, 2, 8)) // discard-only 100::/64
        && !starts(b, 0x20, 0x01, 0x0d, 0xb8) // documentation 2001:db8::/32
        && !(starts(b, 0x20, 0x01, 0x00) && (b[3] & 0xf0) == 0x10) // ORCHID 2001:10::/28
        && !(starts(b, 0x20, 0x01, 0x00) && (b[3] & 0xf0) == 0x20) // ORCHIDv2 2001:20::/28
        && !(starts(b, 0x20, 0x01, 0x00, 0x02) && zero(b, 4, 6)); // benchmarking 2001:2::/48
  }

  private static byte[] v4(byte[] b, int i, int j, int k, int l) {
    return new byte[] {b[i], b[j], b[k], b[l]};
  }

  private static boolean zero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean ones(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if ((b[i] & 0xff) != 0xff) {
        return false;
      }
    }
    return true;
  }

  private static boolean starts(byte[] b, int... prefix) {
    for (int i = 0; i < prefix.length; i++) {
      if ((b[i] & 0xff) != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
