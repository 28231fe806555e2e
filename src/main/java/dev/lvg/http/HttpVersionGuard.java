package dev.lvg.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Answers a request line that names an HTTP version other than 1.0 and 1.1 (say {@code HTTP/2.0},
 * {@code HTTP/0.9}, {@code FOO/1.1}, or the HTTP/2 preface on a server that speaks HTTP/1.1 only)
 * with 400 code 13 and closes the connection; Vert.x would close it without a word before any
 * handler of the gateway sees the request, and a client mistake is a 4xx with the error body. It
 * sits in the connection's Netty pipeline in front of Vert.x's own handler (behind the encoders,
 * which its answer passes through), reached through Vert.x's connection implementation. In front of
 * the HTTP decoder, {@link TlsOnPlainPort} closes at once a connection that opens with a TLS
 * record.
 */
@ChannelHandler.Sharable
final class HttpVersionGuard extends ChannelInboundHandlerAdapter {
  static final HttpVersionGuard INSTANCE = new HttpVersionGuard();
  private static final String NAME = "lvg-http-version";
  private static final String DECODER = "httpDecoder";
  private static final String VERTX_HANDLER = "handler";

  private HttpVersionGuard() {}

  /** Installs the guard on an HTTP/1.x connection; connections of another shape are left alone. */
  static void install(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      ChannelPipeline pipeline = base.channelHandlerContext().pipeline();
      if (pipeline.get(DECODER) != null
          && pipeline.get(VERTX_HANDLER) != null
          && pipeline.get(NAME) == null) {
        pipeline.addBefore(VERTX_HANDLER, NAME, INSTANCE);
        pipeline.addBefore(DECODER, TlsOnPlainPort.NAME, new TlsOnPlainPort());
      }
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest request
        && request.decoderResult().isSuccess()
        // Netty gives exactly "HTTP/1.0" and "HTTP/1.1" as its constants, and Vert.x serves only
        // those instances: another spelling (http/1.1) would get an empty 501.
        && request.protocolVersion() != HttpVersion.HTTP_1_1
        && request.protocolVersion() != HttpVersion.HTTP_1_0) {
      refuse(ctx, request.uri());
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpObject && !ctx.channel().isActive()) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  private static void refuse(ChannelHandlerContext ctx, String uri) {
    byte[] body =
        ErrorResponder.bodyBytes(
            ErrorCode.INVALID_INPUT,
            400,
            "only HTTP/1.0 and HTTP/1.1 are served",
            uri == null ? "" : uri.split("\\?", 2)[0]);
    DefaultFullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST, Unpooled.wrappedBuffer(body));
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
