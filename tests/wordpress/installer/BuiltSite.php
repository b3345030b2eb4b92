<?php

declare(strict_types=1);

namespace Berth\Pg\Tests\Installer;

/**
 * The WordPress tree as the installer has it built (payload/build.sh on Debian's WordPress, in
 * a folder of its own), a project's database beside it (a LOGIN role that is no superuser, its
 * own database and public schema, as the projects plugin makes one), and the app's environment
 * (BERTH_URL, DATABASE_URL, HOME, the eight keys). run() runs a command in the site's folder
 * with that environment, as runtime.commands.v1 does.
 */
final class BuiltSite
{
    public const URL = 'http://blog-ann.example:8080';
    private const PASSWORD = "p@ss w:rd/'q";

    /** @param array<string,string> $env */
    private function __construct(
        public readonly string $tree,
        public readonly string $site,
        public readonly string $role,
        public readonly array $env
    ) {
    }

    public static function build(): self
    {
        $tree = sys_get_temp_dir() . '/berth-wp-payload-' . getmypid();
        self::removeTree($tree);
        exec('cp -R ' . escapeshellarg(BERTH_PAYLOAD) . ' ' . escapeshellarg($tree), $out, $code);
        if ($code !== 0) {
            throw new \RuntimeException("cannot copy the payload to $tree");
        }
        [$code, $log] = self::exec(['sh', 'build.sh'], $tree, ['BERTH_WORDPRESS_VERSION' => '6.1.9'] + self::baseEnv());
        if ($code !== 0) {
            throw new \RuntimeException("build.sh failed:\n$log");
        }
        $role = 'p_installer' . getmypid();
        $admin = self::admin();
        pg_query($admin, "CREATE ROLE $role LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '"
            . pg_escape_string($admin, self::PASSWORD) . "'");
        pg_query($admin, "CREATE DATABASE $role OWNER $role TEMPLATE template0 ENCODING 'UTF8'");
        $base = parse_url((string) getenv('DATABASE_URL'));
        $inside = pg_connect(sprintf("host=%s port=%d user=%s dbname=%s", $base['host'], $base['port'], $base['user'], $role), PGSQL_CONNECT_FORCE_NEW);
        pg_query($inside, "ALTER SCHEMA public OWNER TO $role");
        pg_query($inside, 'REVOKE ALL ON SCHEMA public FROM PUBLIC');
        pg_close($inside);
        $home = "$tree/home";
        mkdir("$home/tmp", 0755, true);
        $env = [
            'BERTH_URL' => self::URL,
            'DATABASE_URL' => sprintf('postgresql://%s:%s@%s:%d/%s', $role, rawurlencode(self::PASSWORD), $base['host'], $base['port'], $role),
            'HOME' => $home,
            'TMPDIR' => "$home/tmp",
        ] + self::baseEnv();
        foreach (['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'] as $key) {
            $env["WORDPRESS_$key"] = base64_encode(random_bytes(48));
        }
        return new self($tree, "$tree/site", $role, $env);
    }

    public function remove(): void
    {
        $admin = self::admin();
        pg_query($admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$this->role'");
        pg_query($admin, "DROP DATABASE IF EXISTS $this->role");
        pg_query($admin, "DROP ROLE IF EXISTS $this->role");
        self::removeTree($this->tree);
    }

    /**
     * The one-off install, as the installer runs it: `php .berth/install.php`, the body on stdin.
     * @param array<string,mixed> $body
     * @param array<string,string|false> $env changes to the app's environment (false: unset)
     * @return array{0:int,1:string} exit code, output
     */
    public function install(array $body, array $env = []): array
    {
        return $this->run(['php', '.berth/install.php'], json_encode($body, JSON_THROW_ON_ERROR), $env);
    }

    /**
     * PHP code run with WordPress loaded (wp-load.php, as a request to BERTH_URL would);
     * what it prints is answered.
     * @param array<string,string|false> $env
     * @return array{0:int,1:string}
     */
    public function withWordPress(string $code, array $env = []): array
    {
        $script = "<?php\n\$_SERVER['HTTP_HOST'] = 'blog-ann.example:8080';\n\$_SERVER['REQUEST_URI'] = '/';\n"
            . "require 'wp-load.php';\n" . $code;
        $file = $this->tree . '/check-' . bin2hex(random_bytes(4)) . '.php';
        file_put_contents($file, $script);
        try {
            return $this->run(['php', $file], '', $env);
        } finally {
            unlink($file);
        }
    }

    /**
     * @param list<string> $argv
     * @param array<string,string|false> $env
     * @return array{0:int,1:string}
     */
    public function run(array $argv, string $stdin = '', array $env = []): array
    {
        $all = $this->env;
        foreach ($env as $name => $value) {
            if ($value === false) {
                unset($all[$name]);
            } else {
                $all[$name] = $value;
            }
        }
        return self::exec($argv, $this->site, $all, $stdin);
    }

    /**
     * @param list<string> $argv
     * @param array<string,string> $env
     * @return array{0:int,1:string} exit code, stdout and stderr together
     */
    private static function exec(array $argv, string $dir, array $env, string $stdin = ''): array
    {
        $process = proc_open($argv, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, $dir, $env);
        if (!is_resource($process)) {
            throw new \RuntimeException('cannot run ' . implode(' ', $argv));
        }
        fwrite($pipes[0], $stdin);
        fclose($pipes[0]);
        $output = stream_get_contents($pipes[1]);
        fclose($pipes[1]);
        return [proc_close($process), (string) $output];
    }

    /** @return array<string,string> */
    private static function baseEnv(): array
    {
        return ['PATH' => '/usr/local/bin:/usr/bin:/bin', 'LANG' => 'C.UTF-8'];
    }

    private static function admin(): \PgSql\Connection
    {
        $url = getenv('DATABASE_URL');
        if ($url === false || $url === '') {
            throw new \RuntimeException('DATABASE_URL is not set: run under tests/support/with_postgres.sh');
        }
        $connection = pg_connect($url, PGSQL_CONNECT_FORCE_NEW);
        if ($connection === false) {
            throw new \RuntimeException("cannot connect to $url");
        }
        return $connection;
    }

    private static function removeTree(string $path): void
    {
        if (is_dir($path)) {
            exec('rm -rf ' . escapeshellarg($path));
        }
    }
}
