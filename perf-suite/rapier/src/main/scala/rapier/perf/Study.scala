package rapier.perf

/**
 * A latency study (seed 000's WebSocket study, and its counterpart for server-sent events): users hold a connection
 * open at a steady pace, and a client of the suite's own, in a JVM on the load CPUs, times what reaches them — from the
 * `System.nanoTime` stamp each message carries to its arrival — to p99.9999. Unlike a load scenario the pace is fixed,
 * so what is compared is latency, not throughput, read beside the hiccups of the server's JVM and of an idle JVM on the
 * same CPU: what the JVM and the OS add, apart from what the server does.
 *
 * @param path
 *   what each user opens
 * @param client
 *   the class of its client (`main`: URL, users, requests, and for WebSockets the interval in milliseconds)
 */
enum Study(val path: String, val client: String):
  /**
   * The seed's throttled stream: each user sends a message every interval and the server answers it on the next tick
   * of its clock (100 ms, the seed's, by default) with the time then.
   */
  case Ticks extends Study("/ws/ts", "rapier.perf.ws.WsClient")

  /** Each user's messages carry its own time, and the server writes them back as they come. */
  case Echo extends Study("/ws/echo", "rapier.perf.ws.WsClient")

  /** Server-sent events: one at every tick of the server's clock, carrying the time then; the users send nothing. */
  case Events extends Study("/sse/ts", "rapier.perf.ws.SseClient")

  /** The URL a user opens on a server at `host:port`. */
  def url(host: String, port: Int): String = s"${if this == Events then "http" else "ws"}://$host:$port$path"

  /** How far apart what is timed comes, for a client interval and a server tick: the tick for events. */
  def pace(intervalMillis: Long, tickMillis: Long): Long = if this == Events then tickMillis else intervalMillis

  /** The client's arguments after its class: URL, users, messages (events) each, and the interval for WebSockets. */
  def arguments(url: String, users: Int, requests: Int, intervalMillis: Long): List[String] =
    List(url, users.toString, requests.toString) ++ Option.when(this != Events)(intervalMillis.toString)

object Study:
  /** Every study, for the servers that serve them all. */
  val all: Set[Study] = values.toSet

  /** The WebSocket studies alone, for a server without server-sent events. */
  val webSockets: Set[Study] = Set(Ticks, Echo)
