<?php

/**
 * Router for `php -S` serving an assembled WordPress: existing files and folders with an
 * index.php are served as they are; every other path goes to index.php, as the
 * `try_files $uri $uri/ /index.php?$args` of a web server would (pretty permalinks, /wp-json/).
 */

$path = (string) parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH);
$root = rtrim($_SERVER['DOCUMENT_ROOT'], '/');
$file = $root . $path;
if ($path !== '/' && (is_file($file) || is_file(rtrim($file, '/') . '/index.php'))) {
    return false;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['PHP_SELF'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir($root);
require $root . '/index.php';
