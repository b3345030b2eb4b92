// Keeps old nginx workers of a reload alive while they may still be sending answers.
//
// nginx before 1.23.1 with epoll (Debian 12's 1.22) can drop the only timer of a request whose
// buffered upstream answer (an app, PHP, berthd) is still arriving: a read that takes exactly
// what FIONREAD announced leaves the read event "ready", so the event pipe deletes its read
// timer until the next bytes come (nginx ticket #2367). A worker told to leave by a reload exits
// as soon as it has no timer left, and closes such a client's connection mid-answer: the
// browser sees ERR_INCOMPLETE_CHUNKED_ENCODING after the first 8 or 16 KB. php-cgi writes its
// output in packets of 8192 bytes, twice nginx's 4 KB buffers, so PHP meets it all the time.
//
// A pin is a request to the edge's pin server (nginx_config.cpp, pinServer) that never ends:
// its upstream is a unix socket berthd listens on and never answers, so its worker always has
// a timer. Before each reload every current worker gets one; an old worker keeps it while it
// still holds a client's connection (an answer in flight, a websocket), at most until
// worker_shutdown_timeout ends it (30 s, the limit long requests already had).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace berth::core {

class EdgePins {
 public:
  // Listens on socket_path (replacing a stale file). Throws std::runtime_error.
  explicit EdgePins(std::string socket_path);
  ~EdgePins();
  EdgePins(const EdgePins&) = delete;
  EdgePins& operator=(const EdgePins&) = delete;

  // Gives every current worker of `master` (not one shutting down) a pin, through the pin
  // server on 127.0.0.1:port, and drops the pins of workers that are gone. Returns how many
  // workers are left without one (connections land on workers by a hash; tries are bounded).
  size_t pinWorkers(pid_t master, uint16_t port);
  // Ends the pins of old workers (shutting down) that no longer hold a client's connection on
  // one of `ports` (the edge's listen ports): they have nothing left to send. Cheap when no
  // worker is leaving.
  void releaseDone(const std::vector<uint16_t>& ports);
  // Ends every pin (berthd stopping the edge).
  void clear();
  size_t size() const { return pins_.size(); }

 private:
  struct Pin {
    pid_t worker;
    int client;  // berthd's connection to the pin server
    int held;    // nginx's connection to socket_path, never answered
  };
  void dropEnded();
  // One connection to the pin server: the worker's pid, and the pin if that worker is wanted.
  void tryOne(uint16_t port, std::vector<pid_t>& wanted);

  std::string socket_path_;
  int listener_ = -1;
  std::vector<Pin> pins_;
};

// The whole of a /proc file; what could be read when its process ends meanwhile (empty when
// it is gone). Never throws.
std::string readProcFile(const std::string& path);

// The master's children that are workers serving (not shutting down), from /proc.
std::vector<pid_t> nginxServingWorkers(pid_t master);

}  // namespace berth::core
