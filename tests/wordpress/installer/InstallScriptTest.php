<?php

declare(strict_types=1);

namespace Berth\Pg\Tests\Installer;

use PHPUnit\Framework\TestCase;

/**
 * The installer's payload on a real PostgreSQL, outside berthd: the tree build.sh makes, the
 * one-off install (.berth/install.php) as runtime.commands.v1 runs it (a new site, then a
 * second install on it), its failures, and the settings wp-config.php and the must-use plugin
 * give WordPress. The installer's C++ side is tests/wordpress/wordpress_installer_test.cpp.
 */
final class InstallScriptTest extends TestCase
{
    private const PASSWORD = "it's a \"quoted\" pass\\word";
    private static BuiltSite $site;

    public static function setUpBeforeClass(): void
    {
        self::$site = BuiltSite::build();
        [$code, $output] = self::$site->install([
            'email' => 'ann@example.com',
            'password' => self::PASSWORD,
            'title' => "Ann's blog",
            'keep_title' => false,
            'user' => 'ann',
        ]);
        if ($code !== 0) {
            throw new \RuntimeException("the first install failed ($code):\n$output");
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$site->remove();
    }

    /** @return array<string,mixed> the result line's object */
    private static function result(string $output): array
    {
        foreach (explode("\n", $output) as $line) {
            if (str_starts_with($line, 'berth-install-result: ')) {
                return json_decode(substr($line, 22), true, 8, JSON_THROW_ON_ERROR);
            }
        }
        self::fail("no result line in:\n$output");
    }

    private static function signsIn(string $user, string $password): bool
    {
        // As the login form sends it: $_POST is slashed, and wp_signon() checks it as it is.
        [$code, $output] = self::$site->withWordPress(sprintf(
            'echo is_wp_error(wp_authenticate(%s, wp_slash(%s))) ? "refused" : "signed in";',
            var_export($user, true),
            var_export($password, true)
        ));
        self::assertSame(0, $code, $output);
        return str_ends_with(trim($output), 'signed in');
    }

    public function testTheTreeHasNoLinkAndBerthsFilesInPlace(): void
    {
        $site = self::$site->site;
        exec('find ' . escapeshellarg($site) . ' -type l', $links);
        $this->assertSame([], $links);
        $this->assertStringContainsString('DISABLE_WP_CRON', file_get_contents("$site/wp-config.php"));
        $this->assertFileDoesNotExist("$site/.htaccess");
        $this->assertFileExists("$site/wp-content/themes/twentytwentythree/style.css");
        $this->assertFileExists("$site/wp-content/mu-plugins/berth.php");
        $this->assertFileExists("$site/wp-content/db.php");
        $this->assertFileExists("$site/.berth/install.php");
    }

    public function testANewSiteHasItsAdministratorTitleAndPermalinks(): void
    {
        $this->assertTrue(self::signsIn('ann', self::PASSWORD));
        $this->assertFalse(self::signsIn('ann', 'not the password'));
        [, $output] = self::$site->withWordPress(
            'echo json_encode([get_option("blogname"), get_option("permalink_structure"), '
            . 'get_permalink(1), user_can(get_user_by("login", "ann"), "administrator"), get_option("admin_email")]);'
        );
        $this->assertSame(
            ['Ann&#039;s blog', '/%postname%/', BuiltSite::URL . '/hello-world/', true, 'ann@example.com'],
            json_decode(trim($output), true),
            $output
        );
    }

    public function testASecondInstallKeepsTheContentAndMakesTheAdministratorAgain(): void
    {
        [$code, $output] = self::$site->withWordPress(
            'echo wp_insert_post(["post_title" => "Kept", "post_status" => "publish", "post_content" => "x"]);'
        );
        $this->assertSame(0, $code, $output);
        $post = (int) trim($output);
        $this->assertGreaterThan(1, $post);

        // No title given (keep_title): the site's stays; a new password for the same user.
        [$code, $output] = self::$site->install([
            'email' => 'ann@example.org',
            'password' => 'a second password',
            'title' => 'My WordPress Site',
            'keep_title' => true,
            'user' => 'ann',
        ]);
        $this->assertSame(0, $code, $output);
        $this->assertSame(
            ['installed' => false, 'user' => 'ann', 'user_created' => false, 'title' => "Ann's blog", 'permalink_structure' => '/%postname%/'],
            self::result($output)
        );
        $this->assertStringNotContainsString('a second password', $output);
        $this->assertFalse(self::signsIn('ann', self::PASSWORD), 'the old password is replaced');
        $this->assertTrue(self::signsIn('ann', 'a second password'));
        [, $output] = self::$site->withWordPress(sprintf(
            'echo json_encode([get_post_status(%d), get_user_by("login", "ann")->user_email]);',
            $post
        ));
        $this->assertSame(['publish', 'ann@example.org'], json_decode(trim($output), true), $output);

        // Another user name: a new administrator beside the first; a title given replaces it.
        [$code, $output] = self::$site->install([
            'email' => 'bob@example.com',
            'password' => 'bobs password',
            'title' => 'Renamed',
            'keep_title' => false,
            'user' => 'bob',
        ]);
        $this->assertSame(0, $code, $output);
        $this->assertSame(['installed' => false, 'user_created' => true, 'title' => 'Renamed'],
            array_intersect_key(self::result($output), ['installed' => 0, 'user_created' => 0, 'title' => 0]));
        $this->assertTrue(self::signsIn('bob', 'bobs password'));
        $this->assertTrue(self::signsIn('ann', 'a second password'), 'other users are untouched');
    }

    public function testFailuresEndWithOneLineSayingWhy(): void
    {
        $body = ['email' => 'ann@example.com', 'password' => 'whatever1', 'title' => 'T', 'keep_title' => true, 'user' => 'ann'];

        [$code, $output] = self::$site->install($body, ['DATABASE_URL' => 'postgresql://nobody@127.0.0.1:1/none']);
        $this->assertSame(1, $code, $output);
        $this->assertStringContainsString("\nberth install: WordPress stopped: Error establishing a database connection", "\n$output");

        [$code, $output] = self::$site->install($body, ['WORDPRESS_NONCE_SALT' => false]);
        $this->assertSame(1, $code, $output);
        $this->assertSame(1, substr_count($output, 'berth install: '), $output);
        $this->assertStringContainsString('berth install: the secret WORDPRESS_NONCE_SALT is missing', $output);

        [$code, $output] = self::$site->run(['php', '.berth/install.php'], 'not json');
        $this->assertSame(1, $code, $output);
        $this->assertStringContainsString('berth install: stdin must be a JSON object', $output);

        // Another user with the same e-mail: WordPress's own words.
        [$code, $output] = self::$site->install(['user' => 'carol', 'email' => 'bob@example.com'] + $body);
        $this->assertSame(1, $code, $output);
        $this->assertStringContainsString('berth install: the administrator carol could not be made: Sorry, that email address is already used!', $output);
    }

    public function testTheSettingsOfWpConfigAndTheMustUsePlugin(): void
    {
        [$code, $output] = self::$site->withWordPress(<<<'PHP'
            require_once ABSPATH . 'wp-admin/includes/file.php';
            $tmp = tempnam(sys_get_temp_dir(), 'up');
            file_put_contents($tmp, 'hello');
            $file = ['name' => 'a.txt', 'type' => 'text/plain', 'tmp_name' => $tmp, 'error' => 0, 'size' => 5];
            $upload = wp_handle_upload($file, ['test_form' => false]);
            $began = microtime(true);
            $http = wp_remote_get('https://api.wordpress.org/core/browse-happy/1.1/');
            wp_set_current_user(get_user_by('login', 'ann')->ID);
            echo "\n", json_encode([
                'constants' => array_map(fn ($c) => constant($c), ['WP_HOME', 'WP_SITEURL', 'DISABLE_WP_CRON', 'DISALLOW_FILE_EDIT', 'DISALLOW_FILE_MODS', 'AUTOMATIC_UPDATER_DISABLED', 'WP_AUTO_UPDATE_CORE', 'WP_HTTP_BLOCK_EXTERNAL']),
                'https' => is_ssl(),
                'forwarded_proto' => $_SERVER['HTTP_X_FORWARDED_PROTO'] ?? null,
                'mail' => wp_mail('x@example.com', 'Hello', 'body'),
                'http' => is_wp_error($http) ? $http->get_error_message() : 'reached',
                'http_fast' => microtime(true) - $began < 1,
                'updates' => get_site_transient('update_core')->updates,
                'plugin_updates' => get_site_transient('update_plugins')->response,
                'rewrite' => apply_filters('got_url_rewrite', false),
                'uploads' => wp_upload_dir()['baseurl'],
                'upload' => $upload['error'] ?? 'stored',
                'install_plugins' => current_user_can('install_plugins'),
                'edit_themes' => current_user_can('edit_themes'),
                'update_core' => current_user_can('update_core'),
            ]);
            PHP, ['HTTP_X_FORWARDED_PROTO' => 'https']);
        $this->assertSame(0, $code, $output);
        $lines = explode("\n", trim($output));
        $answer = json_decode(end($lines), true);
        $this->assertIsArray($answer, $output);
        $this->assertSame([BuiltSite::URL, BuiltSite::URL, true, true, true, true, false, true], $answer['constants']);
        $this->assertFalse($answer['https'], 'a client-sent X-Forwarded-Proto is not believed');
        $this->assertNull($answer['forwarded_proto'], 'nor left for a plugin to believe');
        $this->assertFalse($answer['mail']);
        $this->assertStringContainsString('berth: WordPress did not send the mail "Hello" to 1 recipient(s): this server sends no mail', $output);
        $this->assertStringNotContainsString('x@example.com', $output, 'never who');
        $this->assertSame('WordPress.org is not reached from this server.', $answer['http']);
        $this->assertTrue($answer['http_fast']);
        $this->assertSame([], $answer['updates']);
        $this->assertSame([], $answer['plugin_updates']);
        $this->assertTrue($answer['rewrite']);
        $this->assertSame(BuiltSite::URL . '/_files/uploads', $answer['uploads']);
        $this->assertStringStartsWith('Uploading from the dashboard is not available on this server.', $answer['upload']);
        $this->assertFalse($answer['install_plugins']);
        $this->assertFalse($answer['edit_themes']);
        $this->assertFalse($answer['update_core']);

        // An https project address (TLS ends before the edge): every request is HTTPS.
        [, $output] = self::$site->withWordPress('echo is_ssl() ? "https" : "http";', ['BERTH_URL' => 'https://blog.example.com']);
        $this->assertStringEndsWith('https', trim($output));
    }

    /** The rewrite rules written by a web request know the archives a command line never registers. */
    public function testPrettyPermalinksReachTheCategoryArchive(): void
    {
        foreach (['/category/uncategorized/' => 'Uncategorized', '/hello-world/' => 'Hello world!'] as $path => $seen) {
            // As the edge sends a path that is no file: php-cgi runs /index.php, the front controller.
            [$code, $output] = self::$site->run(['php-cgi'], '', [
                'REDIRECT_STATUS' => '200',
                'REQUEST_METHOD' => 'GET',
                'SCRIPT_NAME' => '/index.php',
                'SCRIPT_FILENAME' => self::$site->site . '/index.php',
                'REQUEST_URI' => $path,
                'HTTP_HOST' => 'blog-ann.example:8080',
                'SERVER_NAME' => 'blog-ann.example',
            ]);
            $this->assertSame(0, $code, $output);
            $this->assertDoesNotMatchRegularExpression('/^Status: 404/m', $output, "$path:\n" . substr($output, 0, 2000));
            $this->assertStringContainsString($seen, $output, $path);
        }
    }

    public function testTheWebInstallerAndTheInstallScriptAreNotReachable(): void
    {
        foreach (['/wp-admin/install.php' => 'wp-admin/install.php', '/.berth/install.php' => '.berth/install.php'] as $name => $file) {
            // As the edge runs a script: php-cgi with the request in its environment.
            [$code, $output] = self::$site->run(['php-cgi'], '', [
                'REDIRECT_STATUS' => '200',
                'REQUEST_METHOD' => 'GET',
                'SCRIPT_NAME' => $name,
                'SCRIPT_FILENAME' => self::$site->site . '/' . $file,
                'REQUEST_URI' => $name,
                'HTTP_HOST' => 'blog-ann.example:8080',
                'SERVER_NAME' => 'blog-ann.example',
            ]);
            $this->assertSame(0, $code, $output);
            $this->assertMatchesRegularExpression('/^Status: 404/m', $output, "$name:\n$output");
        }
    }
}
