#include "soak/apps.hpp"

#include "runtime/tar_builder.hpp"

namespace berth::soak {

namespace {

std::string with(std::string text, int version) {
  const std::string mark = "VERSION";
  for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark))
    text.replace(at, mark.size(), std::to_string(version));
  return text;
}

// /c/... is cacheable (no Cache-Control: the project's cache_ttl applies); everything else is
// no-store, so it reaches the app. A POST answers how many bytes it read.
const char* const kServer = R"JS(
const http = require('http');
http.createServer((req, res) => {
  if (req.method === 'POST') {
    let n = 0;
    req.on('data', (d) => { n += d.length; });
    req.on('end', () => { res.setHeader('cache-control', 'no-store'); res.end('soak-node posted ' + n + '\n'); });
    return;
  }
  if (!req.url.startsWith('/c/')) res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', 'text/plain');
  res.end('soak-node VERSION ' + req.url + '\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
)JS";

// ?db=1 also connects to the project's database (a connection per request, as plain PHP does).
const char* const kIndexPhp = R"PHP(<?php
header('Cache-Control: no-store');
if (($_GET['db'] ?? '') === '1' && function_exists('pg_connect')) {
  $db = pg_connect(getenv('DATABASE_URL'));
  $row = pg_fetch_row(pg_query($db, 'SELECT 40 + 2'));
  echo 'db ', $row[0], "\n";
  pg_close($db);
}
echo 'soak-php VERSION ', $_SERVER['REQUEST_URI'], "\n";
)PHP";

}  // namespace

std::string staticSite(int version) {
  return runtime::testing::TarBuilder()
      .file("index.html", with("<!doctype html><h1>soak-static VERSION</h1>\n", version))
      .file("about/index.html", with("<!doctype html><p>soak-static about VERSION</p>\n", version))
      .file("app.js", with("console.log('soak-static VERSION');\n", version))
      .finish();
}

std::string nodeApp(int version) {
  return runtime::testing::TarBuilder()
      .file("package.json", R"({"name": "soak-node", "main": "server.js"})")
      .file("server.js", with(kServer, version))
      .finish();
}

std::string phpApp(int version) {
  return runtime::testing::TarBuilder()
      .file("index.php", with(kIndexPhp, version))
      .file("style.css", "/* soak-css */ body { color: #123; }\n")
      .finish();
}

}  // namespace berth::soak
