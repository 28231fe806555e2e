package dev.lvg.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes at once a connection to the plain-HTTP port whose first byte opens a TLS record (a
 * handshake, 0x16: a client configured for {@code https://}), instead of letting it wait out the
 * request-head timeout; no request line starts with that byte. Looks at the first bytes only, then
 * leaves the pipeline.
 */
final class TlsOnPlainPort extends ChannelInboundHandlerAdapter {
  static final String NAME = "lvg-tls-on-plain-port";
  private static final Logger LOG = LoggerFactory.getLogger(TlsOnPlainPort.class);
  private static final byte HANDSHAKE = 0x16;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
      if (bytes.getByte(bytes.readerIndex()) == HANDSHAKE) {
        ReferenceCountUtil.release(msg);
        LOG.debug(
            "a TLS handshake from {} on the plain-HTTP port: connection closed",
            ctx.channel().remoteAddress());
        ctx.close();
        return;
      }
      ctx.pipeline().remove(this);
    }
    ctx.fireChannelRead(msg);
  }
}
