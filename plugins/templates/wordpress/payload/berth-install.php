<?php
/**
 * Berth's one-off WordPress install, run by the installer in a new release as the app
 * (runtime.commands.v1: `php .berth/install.php`, in the release's folder, with the app's
 * environment). What it is asked comes on stdin, never on the command line:
 *   {"email": ..., "password": ..., "title": ..., "keep_title": bool, "user": ...}
 * (checked by the installer before it ran; checked again here).
 *
 * A new site: wp_install() (tables, options, roles, the first post and page, the administrator)
 * and the permalink structure /%postname%/. An installed site keeps its content, settings and
 * users: the title is replaced only when the install gave one (keep_title false), and the named
 * administrator is made again (created if missing, else its e-mail and password replaced and
 * its role administrator).
 *
 * It ends with one line `berth-install-result: {installed, user, user_created, title,
 * permalink_structure}` and exit code 0, or with one line `berth install: <why>` and exit code 1.
 * The password is never printed.
 */

declare(strict_types=1);

if (PHP_SAPI !== 'cli') {
    http_response_code(404);
    exit;
}

function berth_install_fail(string $why): void
{
    $why = trim((string) preg_replace('/\s+/', ' ', $why));
    fwrite(STDOUT, 'berth install: ' . $why . "\n");
    $GLOBALS['berth_install_ended'] = true;
    exit(1);
}

// Whatever stops WordPress (wp_die(), dead_db(), a fatal error) ends with our one line.
$GLOBALS['berth_install_ended'] = false;
register_shutdown_function(static function (): void {
    if ($GLOBALS['berth_install_ended']) {
        return;
    }
    $error = error_get_last();
    $why = $error !== null && in_array($error['type'], [E_ERROR, E_PARSE, E_CORE_ERROR, E_COMPILE_ERROR], true)
        ? 'PHP stopped: ' . $error['message'] . ' in ' . $error['file'] . ':' . $error['line']
        : 'WordPress stopped before the install finished (see the lines above)';
    berth_install_fail($why);
});

function berth_install_die($message, $title = '', $args = []): void
{
    if (function_exists('is_wp_error') && is_wp_error($message)) {
        $message = $message->get_error_message();
    }
    $text = function_exists('wp_strip_all_tags') ? wp_strip_all_tags((string) $message) : strip_tags((string) $message);
    berth_install_fail('WordPress stopped: ' . html_entity_decode($text, ENT_QUOTES));
}

$raw = stream_get_contents(STDIN);
$asked = json_decode($raw === false ? '' : $raw, true);
if (!is_array($asked)) {
    berth_install_fail('stdin must be a JSON object {email, password, title, keep_title, user}');
}
foreach (['email', 'password', 'title', 'user'] as $field) {
    if (!isset($asked[$field]) || !is_string($asked[$field]) || $asked[$field] === '') {
        berth_install_fail("stdin has no $field");
    }
}
$keep_title = ($asked['keep_title'] ?? false) === true;

// WordPress reads the request's host and path even here: the project's own address.
$url = parse_url(rtrim((string) getenv('BERTH_URL'), '/'));
if (!is_array($url) || !isset($url['host'])) {
    berth_install_fail("BERTH_URL (the project's address) is missing");
}
$_SERVER['HTTP_HOST'] = $url['host'] . (isset($url['port']) ? ':' . $url['port'] : '');
$_SERVER['SERVER_NAME'] = $url['host'];
$_SERVER['SERVER_PORT'] = (string) ($url['port'] ?? (($url['scheme'] ?? '') === 'https' ? 443 : 80));
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';

// Before WordPress loads: wp_die() in any form (dead_db() too) becomes our one line.
$GLOBALS['wp_filter'] = [
    'wp_die_handler' => [10 => [['function' => static fn () => 'berth_install_die', 'accepted_args' => 1]]],
];
define('WP_INSTALLING', true);
require dirname(__DIR__) . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

// No HTTP while installing: wp_install() would ask the site itself whether pretty permalinks
// work (the answer is known: they do), and nothing else needs the network.
add_filter('pre_http_request', static fn () => new WP_Error('berth_install', 'no HTTP requests during the install'), 1);
// The person installing knows their password and address: no mail about them.
add_filter('send_password_change_email', '__return_false');
add_filter('send_email_change_email', '__return_false');

$installed_before = is_blog_installed();
if (!$installed_before) {
    $made = wp_install($asked['title'], $asked['user'], $asked['email'], true, '', wp_slash($asked['password']));
    if (!is_array($made) || !is_blog_installed()) {
        berth_install_fail('wp_install() did not finish: the site is still not installed');
    }
    global $wp_rewrite;
    $wp_rewrite->set_permalink_structure('/%postname%/');
} elseif (!$keep_title) {
    update_option('blogname', $asked['title']);
}
// The rules are left for the first web request to write. Flushed here, from the command line,
// they would miss what only a web request registers before the flush (the category and tag
// archives: /category/uncategorized/ would answer 404). A re-install mends a site whose rules
// were written that way.
delete_option('rewrite_rules');

// The administrator: made, or made again with this e-mail and password. WordPress checks a
// password as its login form sends it, slashed (wp_signon() takes $_POST['pwd'] as it is), so
// it is stored slashed, as wp-admin/install.php does.
$user = get_user_by('login', $asked['user']);
$user_created = !$installed_before;
if ($user === false) {
    $id = wp_create_user($asked['user'], wp_slash($asked['password']), $asked['email']);
    if (is_wp_error($id)) {
        berth_install_fail('the administrator ' . $asked['user'] . ' could not be made: ' . $id->get_error_message());
    }
    $user_created = true;
} else {
    $id = $user->ID;
    if (strcasecmp($user->user_email, $asked['email']) !== 0) {
        $updated = wp_update_user(['ID' => $id, 'user_email' => wp_slash($asked['email'])]);
        if (is_wp_error($updated)) {
            berth_install_fail('the e-mail of ' . $asked['user'] . ' could not be changed: ' . $updated->get_error_message());
        }
    }
    if ($installed_before) {
        wp_set_password(wp_slash($asked['password']), $id);
    }
}
(new WP_User($id))->set_role('administrator');

$GLOBALS['berth_install_ended'] = true;
fwrite(STDOUT, 'berth-install-result: ' . json_encode([
    'installed' => !$installed_before,
    'user' => $asked['user'],
    'user_created' => $user_created,
    // WordPress keeps the title HTML-escaped ("Ann&#039;s blog"); the answer gives it as written.
    'title' => wp_specialchars_decode((string) get_option('blogname'), ENT_QUOTES),
    'permalink_structure' => get_option('permalink_structure'),
], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
exit(0);
