<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The real thing: Debian's WordPress with the drop-in, installed with wp_install() from
 * php-cli on a project's PostgreSQL, then served by `php -S` and read as a visitor would.
 * No page may fail (5xx) and nothing may log "WordPress database error".
 */
final class WordPressSiteTest extends TestCase
{
    private static ?ProjectDatabase $database = null;
    private static string $tree = '';
    private static string $root = '';
    private static string $base = '';
    private static string $serverLog = '';
    /** @var resource|null */
    private static $server = null;
    /** @var array{status:int, stdout:string, stderr:string} */
    private static array $install = ['status' => -1, 'stdout' => '', 'stderr' => ''];
    private static int $logOffset = 0;
    /** @var array<string,string> */
    private static array $cookies = [];

    public static function setUpBeforeClass(): void
    {
        self::$database = ProjectDatabase::create();
        self::$tree = self::assemble();
        self::$root = self::$tree . '/wordpress';
        $port = self::freePort();
        self::$base = "http://127.0.0.1:$port";
        $env = self::environment();

        $started = microtime(true);
        self::$install = self::runCommand([PHP_BINARY, __DIR__ . '/site/install.php', self::$root], $env);
        fwrite(STDERR, sprintf("wp_install(): %.1f s\n", microtime(true) - $started));

        self::$serverLog = self::$tree . '/server.log';
        self::$server = proc_open(
            [PHP_BINARY, '-S', "127.0.0.1:$port", '-t', self::$root, __DIR__ . '/site/router.php'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', self::$serverLog, 'a'], 2 => ['file', self::$serverLog, 'a']],
            $pipes,
            self::$root,
            $env
        );
        for ($i = 0; $i < 100; $i++) {
            $socket = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.2);
            if ($socket !== false) {
                fclose($socket);
                break;
            }
            usleep(50000);
        }
    }

    public static function tearDownAfterClass(): void
    {
        if (is_resource(self::$server)) {
            proc_terminate(self::$server);
            proc_close(self::$server);
        }
        if (self::$tree !== '' && getenv('BERTH_KEEP_SITE') === false) {
            exec('rm -rf ' . escapeshellarg(self::$tree));
        } elseif (self::$tree !== '') {
            fwrite(STDERR, 'site kept in ' . self::$tree . "\n");
        }
        self::$database?->drop();
    }

    public function testWordPressInstallsFromTheCommandLine(): void
    {
        $this->assertSame(0, self::$install['status'], 'install.php failed: ' . self::$install['stderr'] . self::$install['stdout']);
        $this->assertSame(self::$base, trim(self::$install['stdout']));
        $this->assertStringNotContainsString('cannot run', self::$install['stderr']);
        // Install probes for tables that do not exist yet (as it does on MySQL); nothing else may fail.
        foreach (explode("\n", self::$install['stderr']) as $line) {
            if (str_contains($line, 'WordPress database error')) {
                $this->assertMatchesRegularExpression("/WordPress database error Table '[^']+' doesn't exist for query /", $line);
            }
        }
        $inspect = self::$database->inspect();
        $this->assertSame('Berth Test Site', pg_fetch_result(pg_query($inspect, "SELECT option_value FROM wp_options WHERE option_name = 'blogname'"), 0, 0));
        $this->assertSame('1', pg_fetch_result(pg_query($inspect, "SELECT count(*) FROM wp_users WHERE user_login = 'admin'"), 0, 0));
    }

    public function testFrontPage(): void
    {
        $body = $this->get('/');
        $this->assertStringContainsString('Berth Test Site', $body);
        $this->assertStringContainsString('Hello world!', $body);
    }

    public function testSinglePost(): void
    {
        $body = $this->get('/hello-world/');
        $this->assertStringContainsString('Hello world!', $body);
        $this->assertStringContainsString('Welcome to WordPress', $body);
    }

    public function testSearch(): void
    {
        $this->assertStringContainsString('Hello world!', $this->get('/?s=hello'));
        $this->assertStringNotContainsString('Hello world!', $this->get('/?s=nothingmatchesthis'));
    }

    public function testFeed(): void
    {
        $body = $this->get('/feed/');
        $this->assertStringContainsString('<rss', $body);
        $this->assertStringContainsString('<title>Hello world!</title>', $body);
    }

    public function testLoginPage(): void
    {
        $body = $this->get('/wp-login.php');
        $this->assertStringContainsString('name="log"', $body);
    }

    public function testSamplePageCategoryAndDateArchive(): void
    {
        $this->assertStringContainsString('Sample Page', $this->get('/sample-page/'));
        $this->assertStringContainsString('Hello world!', $this->get('/category/uncategorized/'));
        $this->assertStringContainsString('Hello world!', $this->get('/' . gmdate('Y') . '/'));
    }

    public function testLogInAndOpenTheDashboard(): void
    {
        $this->get('/wp-login.php');
        [$status, $headers] = $this->request('POST', '/wp-login.php', http_build_query([
            'log' => 'admin', 'pwd' => 'correct horse battery staple', 'rememberme' => 'forever',
            'wp-submit' => 'Log In', 'redirect_to' => self::$base . '/wp-admin/', 'testcookie' => '1',
        ]));
        $this->assertSame(302, $status, 'a correct password redirects to the dashboard');
        $this->assertStringContainsString('/wp-admin/', $headers['location'] ?? '');
        $body = $this->get('/wp-admin/');
        $this->assertStringContainsString('Dashboard', $body);
        $this->assertStringContainsString('Hello world!', $this->get('/wp-admin/edit.php'));
    }

    public function testAnonymousComment(): void
    {
        self::$cookies = [];
        [$status] = $this->request('POST', '/wp-comments-post.php', http_build_query([
            'comment' => 'A comment from the test, with "quotes" and a backslash \\ in it.',
            'author' => 'Visitor', 'email' => 'visitor@example.com', 'url' => '',
            'comment_post_ID' => '1', 'comment_parent' => '0',
        ]));
        $this->assertSame(302, $status, 'a comment is accepted and redirects back to the post');
        $inspect = self::$database->inspect();
        $this->assertSame(
            'A comment from the test, with "quotes" and a backslash \\ in it.',
            pg_fetch_result(pg_query($inspect, "SELECT comment_content FROM wp_comments WHERE comment_author = 'Visitor'"), 0, 0)
        );
    }

    /** GETs a page: it must not fail and no database error may show in it or in the logs. */
    private function get(string $path): string
    {
        [$status, , $body] = $this->request('GET', $path);
        $this->assertLessThan(400, $status, "GET $path answered $status");
        return $body;
    }

    /** @return array{0:int, 1:array<string,string>, 2:string} */
    private function request(string $method, string $path, ?string $form = null): array
    {
        $headers = [];
        if ($form !== null) {
            $headers[] = 'Content-Type: application/x-www-form-urlencoded';
        }
        $cookies = ['wordpress_test_cookie' => 'WP Cookie check'] + self::$cookies;
        $headers[] = 'Cookie: ' . implode('; ', array_map(fn ($k, $v) => "$k=" . rawurlencode($v), array_keys($cookies), $cookies));
        $context = stream_context_create(['http' => [
            'method' => $method, 'header' => implode("\r\n", $headers), 'content' => $form ?? '',
            'ignore_errors' => true, 'follow_location' => 0, 'timeout' => 60,
        ]]);
        $body = (string) @file_get_contents(self::$base . $path, false, $context);
        $status = 0;
        $answer = [];
        foreach ($http_response_header ?? [] as $line) {
            if (preg_match('#^HTTP/\S+ (\d+)#', $line, $m)) {
                $status = (int) $m[1];
            } elseif (str_contains($line, ':')) {
                [$name, $value] = explode(':', $line, 2);
                $answer[strtolower($name)] = trim($value);
                if (strtolower($name) === 'set-cookie' && preg_match('/^([^=]+)=([^;]*)/', trim($value), $c)) {
                    if (str_contains($value, 'expires=Thu, 01-Jan-1970') || $c[2] === 'deleted') {
                        unset(self::$cookies[$c[1]]);
                    } else {
                        self::$cookies[$c[1]] = rawurldecode($c[2]);
                    }
                }
            }
        }
        $this->assertLessThan(500, $status, "$method $path answered $status: " . substr($body, 0, 2000));
        $this->assertStringNotContainsString('WordPress database error', $body, "$method $path shows a database error");
        $this->assertNoNewDatabaseErrors("$method $path");
        return [$status, $answer, $body];
    }

    private function assertNoNewDatabaseErrors(string $what): void
    {
        clearstatcache();
        $log = (string) file_get_contents(self::$serverLog, false, null, self::$logOffset);
        self::$logOffset += strlen($log);
        $errors = array_filter(explode("\n", $log), fn ($line) => str_contains($line, 'WordPress database error') || str_contains($line, 'PHP Fatal'));
        $this->assertSame([], array_values($errors), "$what logged database errors");
    }

    /** Debian's WordPress (links resolved), minus its wp-config.php dispatcher, plus the drop-in. */
    private static function assemble(): string
    {
        $tree = sys_get_temp_dir() . '/berth-wpdb-site-' . getmypid();
        exec('rm -rf ' . escapeshellarg($tree));
        mkdir($tree);
        $root = "$tree/wordpress";
        exec('cp -rL ' . escapeshellarg(rtrim(BERTH_WORDPRESS, '/')) . ' ' . escapeshellarg($root), $out, $status);
        if ($status !== 0) {
            throw new \RuntimeException('cannot copy WordPress from ' . BERTH_WORDPRESS);
        }
        unlink("$root/wp-config.php");
        copy(__DIR__ . '/site/wp-config.php', "$root/wp-config.php");
        copy(BERTH_PAYLOAD . '/wp-content/db.php', "$root/wp-content/db.php");
        exec('cp -r ' . escapeshellarg(BERTH_PAYLOAD . '/wp-content/berth-pgsql') . ' ' . escapeshellarg("$root/wp-content/"), $out, $status);
        if ($status !== 0) {
            throw new \RuntimeException('cannot copy the drop-in');
        }
        return $tree;
    }

    /** @return array<string,string> */
    private static function environment(): array
    {
        $env = getenv();
        $env['DATABASE_URL'] = self::$database->url;
        $env['BERTH_TEST_SITE_URL'] = self::$base;
        unset($env['BERTH_TEST_ADMIN_URL']);
        return $env;
    }

    /**
     * @param list<string> $command
     * @param array<string,string> $env
     * @return array{status:int, stdout:string, stderr:string}
     */
    private static function runCommand(array $command, array $env): array
    {
        // stderr to a file: two pipes read one after the other can block each other.
        $errors = tempnam(sys_get_temp_dir(), 'wpdb-stderr');
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $errors, 'w']], $pipes, null, $env);
        $stdout = stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        $status = proc_close($process);
        $stderr = (string) file_get_contents($errors);
        unlink($errors);
        return ['status' => $status, 'stdout' => (string) $stdout, 'stderr' => $stderr];
    }

    private static function freePort(): int
    {
        $server = stream_socket_server('tcp://127.0.0.1:0');
        $name = stream_socket_get_name($server, false);
        fclose($server);
        return (int) substr((string) strrchr((string) $name, ':'), 1);
    }
}
