package io.replaysafe.common.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injecting HTTP proxy on loopback in front of an S3 endpoint, for tests that prove a run
 * survives a misbehaving store. Each request is forwarded on its own upstream connection, and a
 * seeded share of them fail: {@code 503 SlowDown} without reaching the store, the connection reset
 * in the middle of the response, or a latency spike before forwarding. Signatures stay valid: the
 * request, Host header included, is forwarded unchanged but for {@code Connection: close}.
 *
 * <p>Besides the seeded faults, reads of one object can be made to fail, deterministically: its GET
 * ({@link #failGet}), or its GET and HEAD ({@link #failGetAndHead}), are answered with an S3 error
 * while listings, which the proxy forwards unchanged, still show it. Only path-style requests are
 * matched.
 */
public final class FaultyS3Proxy implements AutoCloseable {
  public enum Fault {
    NONE,
    SLOW_DOWN,
    RESET,
    LATENCY
  }

  /** How reads of one object fail; see {@link #failGet} and {@link #failGetAndHead}. */
  public enum ObjectFault {
    /** Permission denied: {@code 403 AccessDenied}. */
    ACCESS_DENIED(403, "Forbidden", "AccessDenied", "Access Denied"),
    /** Gone since it was listed: {@code 404 NoSuchKey}. */
    NO_SUCH_KEY(404, "Not Found", "NoSuchKey", "The specified key does not exist."),
    /** Throttled, every time: {@code 503 SlowDown}, a store failing for a while, not the file. */
    SLOW_DOWN(503, "Slow Down", "SlowDown", "Please reduce your request rate.");

    private final int status;
    private final String reason;
    private final String code;
    private final String message;

    ObjectFault(int status, String reason, String code, String message) {
      this.status = status;
      this.reason = reason;
      this.code = code;
      this.message = message;
    }
  }

  private final ServerSocket server;
  private final URI upstream;
  private final Random random;
  private final double slowDown;
  private final double reset;
  private final double latency;
  private final long latencyMillis;
  private final ExecutorService workers = Executors.newCachedThreadPool(daemon());
  private final AtomicLong requests = new AtomicLong();
  private final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> kinds =
      new java.util.concurrent.ConcurrentHashMap<>();
  // Key: bucket, a space, kind.
  private final Map<String, AtomicLong> bucketKinds = new ConcurrentHashMap<>();
  private final AtomicLong slowDowns = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong spikes = new AtomicLong();
  private final AtomicLong objectFaults = new AtomicLong();
  private final Map<String, ObjectFault> failingGets = new ConcurrentHashMap<>();
  private final Map<String, ObjectFault> failingHeads = new ConcurrentHashMap<>();
  private final Queue<String> targets = new ConcurrentLinkedQueue<>();
  private volatile boolean faulty = true;
  private volatile boolean recordingTargets;

  /** A proxy without seeded faults, for tests that only need {@link #failGet} and the like. */
  public FaultyS3Proxy(URI upstream) throws IOException {
    this(upstream, 0, 0, 0, 0, 0);
  }

  /**
   * @param slowDown share of requests answered 503 SlowDown
   * @param reset share of requests whose connection is reset mid-response
   * @param latency share of requests delayed by {@code latencyMillis}
   */
  public FaultyS3Proxy(
      URI upstream, long seed, double slowDown, double reset, double latency, long latencyMillis)
      throws IOException {
    this.upstream = upstream;
    this.random = new Random(seed);
    this.slowDown = slowDown;
    this.reset = reset;
    this.latency = latency;
    this.latencyMillis = latencyMillis;
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    workers.submit(this::acceptLoop);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** Turns fault injection on or off; requests are forwarded either way. */
  public void faulty(boolean on) {
    this.faulty = on;
  }

  /**
   * From now on every GET of {@code key} in {@code bucket} is answered with {@code fault} without
   * reaching the store; HEAD and listings still show the object, as when it is deleted after a
   * reader looked it up, or its content is denied (an SSE-KMS key the reader may not use).
   * Independent of {@link #faulty}.
   */
  public void failGet(String bucket, String key, ObjectFault fault) {
    failingGets.put("/" + bucket + "/" + key, fault);
  }

  /**
   * Like {@link #failGet}, and HEAD of the object fails the same way: only listings still show it,
   * as when it is deleted after a listing, or a bucket policy denies reading it.
   */
  public void failGetAndHead(String bucket, String key, ObjectFault fault) {
    failGet(bucket, key, fault);
    failingHeads.put("/" + bucket + "/" + key, fault);
  }

  /** Reads of {@code key} in {@code bucket} reach the store again ({@link #failGetAndHead}). */
  public void heal(String bucket, String key) {
    failingGets.remove("/" + bucket + "/" + key);
    failingHeads.remove("/" + bucket + "/" + key);
  }

  public long requests() {
    return requests.get();
  }

  /**
   * Requests so far by kind: LIST (a GET on the bucket: ListObjects), GET, HEAD, PUT, POST, DELETE.
   */
  public java.util.Map<String, Long> requestsByKind() {
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    kinds.forEach((kind, n) -> counts.put(kind, n.get()));
    return counts;
  }

  /**
   * Requests so far to one bucket, by kind (as {@link #requestsByKind}): a benchmark that keeps its
   * landing files and its tables in different buckets tells the listing of the one from the other.
   */
  public java.util.Map<String, Long> requestsByKind(String bucket) {
    java.util.Map<String, Long> counts = new java.util.TreeMap<>();
    bucketKinds.forEach(
        (key, n) -> {
          if (key.startsWith(bucket + " ")) {
            counts.put(key.substring(bucket.length() + 1), n.get());
          }
        });
    return counts;
  }

  /** Forgets the counts by kind (and the total), e.g. between the runs a benchmark compares. */
  public void resetCounts() {
    kinds.clear();
    bucketKinds.clear();
    requests.set(0);
    targets.clear();
  }

  /**
   * From now on (with {@code true}) keeps each request's kind and target, for a benchmark that
   * shows which paths its requests go to; {@link #resetCounts} forgets them. Off by default: a long
   * test would keep every request it made.
   */
  public void recordTargets(boolean on) {
    this.recordingTargets = on;
  }

  /**
   * The requests recorded since the last {@link #resetCounts}, each as its kind, a space and its
   * request target as sent: {@code "LIST /bucket?list-type=2&prefix=..."}, {@code "PUT
   * /bucket/key"}. Empty unless {@link #recordTargets} is on.
   */
  public List<String> recordedTargets() {
    return List.copyOf(targets);
  }

  /** The request line's target: path and query. */
  private static String target(String head) {
    return head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
  }

  /** The bucket a path-style request goes to: the target's first segment. */
  private static String bucket(String head) {
    String path = target(head).replaceAll("[?].*$", "").replaceAll("^/+", "");
    int slash = path.indexOf('/');
    return slash < 0 ? path : path.substring(0, slash);
  }

  private static String kind(String head, String method) {
    String target = target(head);
    String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
    boolean bucketLevel = path.replaceAll("^/+|/+$", "").indexOf('/') < 0;
    return "GET".equals(method) && bucketLevel && target.contains("?") ? "LIST" : method;
  }

  /** Seeded faults injected so far (not counting {@link #objectFaults()}). */
  public long faults() {
    return slowDowns.get() + resets.get() + spikes.get();
  }

  /** Reads answered with an {@link ObjectFault} so far. */
  public long objectFaults() {
    return objectFaults.get();
  }

  public String summary() {
    return requests.get()
        + " request(s): "
        + slowDowns.get()
        + " 503 SlowDown, "
        + resets.get()
        + " reset mid-response, "
        + spikes.get()
        + " latency spike(s) of "
        + latencyMillis
        + " ms";
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        workers.submit(() -> handle(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private Fault choose() {
    if (!faulty) {
      return Fault.NONE;
    }
    double r;
    synchronized (random) {
      r = random.nextDouble();
    }
    if (r < slowDown) {
      return Fault.SLOW_DOWN;
    }
    if (r < slowDown + reset) {
      return Fault.RESET;
    }
    if (r < slowDown + reset + latency) {
      return Fault.LATENCY;
    }
    return Fault.NONE;
  }

  private void handle(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      requests.incrementAndGet();
      String method = head.substring(0, head.indexOf(' '));
      String kind = kind(head, method);
      kinds
          .computeIfAbsent(kind, k -> new java.util.concurrent.atomic.AtomicLong())
          .incrementAndGet();
      bucketKinds
          .computeIfAbsent(
              bucket(head) + " " + kind, k -> new java.util.concurrent.atomic.AtomicLong())
          .incrementAndGet();
      if (recordingTargets) {
        targets.add(kind + " " + target(head));
      }
      long length = contentLength(head);
      boolean expectContinue = header(head, "expect") != null;
      OutputStream toClient = client.getOutputStream();
      ObjectFault objectFault = objectFault(head, method);
      if (objectFault != null) {
        objectFaults.incrementAndGet();
        answer(toClient, objectFault, "HEAD".equals(method));
        return;
      }
      Fault fault = choose();
      if (fault == Fault.SLOW_DOWN) {
        slowDowns.incrementAndGet();
        if (!expectContinue) {
          in.skipNBytes(length);
        }
        String body =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
                + "<Message>Please reduce your request rate.</Message>"
                + "<RequestId>FAULT</RequestId></Error>";
        toClient.write(
            ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                    + body.length()
                    + "\r\nConnection: close\r\n\r\n"
                    + body)
                .getBytes(StandardCharsets.US_ASCII));
        toClient.flush();
        return;
      }
      if (fault == Fault.LATENCY) {
        spikes.incrementAndGet();
        Thread.sleep(latencyMillis);
      }
      try (Socket up = new Socket(upstream.getHost(), upstream.getPort())) {
        up.setSoTimeout(120_000);
        OutputStream toUp = up.getOutputStream();
        toUp.write(withConnectionClose(head).getBytes(StandardCharsets.ISO_8859_1));
        toUp.flush();
        // The body goes up on its own thread: with "Expect: 100-continue" it follows the
        // store's interim response, which the relay below passes to the client.
        var body =
            workers.submit(
                () -> {
                  copy(in, toUp, length);
                  toUp.flush();
                  return null;
                });
        relay(up.getInputStream(), toClient, client, fault == Fault.RESET, method);
        body.cancel(true);
      }
    } catch (IOException | InterruptedException e) {
      // The client or the store went away: nothing to report for a fault injector.
    }
  }

  /** The fault set for the object a GET or HEAD reads, if any. */
  private ObjectFault objectFault(String head, String method) {
    Map<String, ObjectFault> failing =
        switch (method) {
          case "GET" -> failingGets;
          case "HEAD" -> failingHeads;
          default -> Map.of();
        };
    if (failing.isEmpty()) {
      return null;
    }
    String target = target(head);
    int query = target.indexOf('?');
    String path =
        URLDecoder.decode(query < 0 ? target : target.substring(0, query), StandardCharsets.UTF_8);
    return failing.get(path);
  }

  private static void answer(OutputStream toClient, ObjectFault fault, boolean head)
      throws IOException {
    String body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
            + fault.code
            + "</Code><Message>"
            + fault.message
            + "</Message><RequestId>FAULT</RequestId></Error>";
    toClient.write(
        ("HTTP/1.1 "
                + fault.status
                + " "
                + fault.reason
                + "\r\nContent-Type: application/xml\r\nContent-Length: "
                + (head ? 0 : body.length())
                + "\r\nConnection: close\r\n\r\n"
                + (head ? "" : body))
            .getBytes(StandardCharsets.US_ASCII));
    toClient.flush();
  }

  /** Copies the response; with {@code cut}, resets the client connection halfway through it. */
  private void relay(
      InputStream fromUp, OutputStream toClient, Socket client, boolean cut, String method)
      throws IOException {
    while (true) {
      String head = readHead(fromUp);
      if (head == null) {
        return;
      }
      boolean interim = head.startsWith("HTTP/1.1 1");
      long length = "HEAD".equals(method) || interim ? 0 : contentLength(head);
      if (cut && !interim) {
        resets.incrementAndGet();
        if (length > 0) {
          toClient.write(head.getBytes(StandardCharsets.ISO_8859_1));
          toClient.write(fromUp.readNBytes((int) Math.min(length / 2, 1 << 20)));
          toClient.flush();
        }
        client.setSoLinger(true, 0); // close() now sends RST
        return;
      }
      toClient.write(head.getBytes(StandardCharsets.ISO_8859_1));
      if (interim) {
        toClient.flush();
        continue;
      }
      if (length >= 0) {
        copy(fromUp, toClient, length);
      } else {
        // Without a length the store closes the connection at the end of the body.
        fromUp.transferTo(toClient);
      }
      toClient.flush();
      return;
    }
  }

  private static void copy(InputStream in, OutputStream out, long n) throws IOException {
    byte[] buffer = new byte[8192];
    while (n > 0) {
      int read = in.read(buffer, 0, (int) Math.min(buffer.length, n));
      if (read < 0) {
        return;
      }
      out.write(buffer, 0, read);
      n -= read;
    }
  }

  private static String withConnectionClose(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.split("\r\n")) {
      if (!line.isEmpty() && !line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  private static long contentLength(String head) {
    String v = header(head, "content-length");
    return v == null ? (head.startsWith("HTTP/") ? -1 : 0) : Long.parseLong(v.trim());
  }

  private static String header(String head, String name) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** Bytes up to and including the blank line, or null at end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    return r -> {
      Thread t = new Thread(r, "faulty-s3-proxy");
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() throws IOException {
    server.close();
    workers.shutdownNow();
  }
}
