-- GetFile: GET /pathFile0: a 5 MB file from disk
wrk.method = "GET"
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RAPIER_WRK {"requests":%.0f,"durationMicros":%.0f,"bytes":%.0f,' ..
    '"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout))
  io.write(string.format('"latency":{"min":%.0f,"max":%.0f,"mean":%.3f,"stdev":%.3f,' ..
    '"p50":%.0f,"p75":%.0f,"p90":%.0f,"p99":%.0f,"p999":%.0f,"p9999":%.0f}}\n',
    latency.min, latency.max, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency:percentile(99.99)))
end
