<?php

/**
 * Installs the assembled WordPress from the CLI, as the flows' "install" step:
 *   php install.php <wordpress dir> <base url> <user> <password>
 * wp_install() (tables, options, the first post and comment), then pretty permalinks
 * (/%postname%/) for the single post, category and date archive addresses.
 */

declare(strict_types=1);

[, $dir, $base, $user, $password] = $argv + [null, null, null, null, null];
if ($password === null) {
    fwrite(STDERR, "usage: php install.php <wordpress dir> <base url> <user> <password>\n");
    exit(2);
}
$url = parse_url($base);
$_SERVER['HTTP_HOST'] = $url['host'] . (isset($url['port']) ? ':' . $url['port'] : '');
$_SERVER['SERVER_NAME'] = $url['host'];
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
define('WP_INSTALLING', true);
define('WP_SITEURL', $base);
define('WP_HOME', $base);
require rtrim($dir, '/') . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

if (is_blog_installed()) {
    fwrite(STDERR, "install.php: WordPress is installed already\n");
    exit(1);
}
$answer = wp_install('My Site', $user, 'you@example.com', true, '', wp_slash($password));
if (empty($answer['user_id'])) {
    fwrite(STDERR, "install.php: wp_install() failed\n");
    exit(1);
}
update_option('siteurl', $base);
update_option('home', $base);
update_option('permalink_structure', '/%postname%/');
echo json_encode(['user_id' => $answer['user_id']]), "\n";
