package rapier.server

/**
 * Where a direct-style server ([[Identity]] logic, a virtual thread per request) first runs each request's thread.
 */
enum VirtualThreadStart:
  /**
   * On the JDK's own carrier threads: any logic, blocking as it likes, holds nothing but its own thread. Each request
   * hops from the connection's event loop to a carrier thread and back; the requests a loop reads in one turn hop
   * together, waking a carrier once.
   */
  case OnCarrier

  /**
   * On the connection's event loop, until the logic first waits (a lock, a socket, a sleep, a request body still
   * arriving), from which point the thread goes on on the JDK's carriers, as with [[OnCarrier]]. Logic that answers
   * without waiting then costs no hop between threads. The price: until it first waits, the logic holds its loop's
   * other connections, and so does a blocking call that can't release its thread (a native call, a file read, a
   * monitor held before JDK 24, a class being initialised) — keep such work out of the logic's first steps or use
   * [[OnCarrier]]. Uses a scheduler of Rapier's own, which the JDK allows only when the JVM runs with
   * `--add-opens java.base/java.lang=ALL-UNNAMED`; a server started without it fails, saying so.
   */
  case OnLoop
