<?php

/**
 * Router for `php -S`: files that exist are served as they are (PHP files run), every other
 * path goes to WordPress's index.php, as a web server's rewrite rule would send it.
 */

$path = (string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$root = $_SERVER['DOCUMENT_ROOT'];
if ($path !== '/' && file_exists($root . $path)) {
    return false;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
require $root . '/index.php';
