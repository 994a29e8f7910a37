package rapier

/**
 * Which pages may open a WebSocket endpoint, by the `Origin` a browser sends with the upgrade. A browser sends a site's
 * cookies with every WebSocket it opens, from any page, and the same-origin policy does not stop it (RFC 6455 §10.2):
 * without this check, any site a signed-in user visits could open the socket as that user. A request without `Origin`
 * is not a browser's, and is let through by every policy but [[WebSocketOrigins.Only]] with `requireOrigin`.
 */
enum WebSocketOrigins:
  /** Pages of the server's own origin: an `Origin` whose host and port are the request's `Host` (the default). */
  case SameOrigin

  /**
   * Pages of these origins only, each as a browser sends it: scheme, host and port if not the scheme's own
   * (`https://app.example.com`, `http://localhost:3000`), compared ignoring case. `requireOrigin` refuses requests
   * without one too.
   */
  case Only(origins: Set[String], requireOrigin: Boolean = false)

  /** Any page: for a WebSocket that takes no credentials a browser sends by itself (cookies, client certificates). */
  case Any
