<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * Turns the project's DATABASE_URL (postgresql://user:password@host:port/db?key=value) into a
 * libpq conninfo string. Every value is quoted, so a password holding spaces, quotes or "="
 * cannot add keywords of its own.
 */
final class ConnectionUrl
{
    /** @var array<string,string> conninfo keyword => value, in order */
    public readonly array $params;

    /** @param array<string,string> $params */
    private function __construct(array $params)
    {
        $this->params = $params;
    }

    public static function parse(string $url): self
    {
        if (!preg_match('#^(postgresql|postgres)://#i', $url)) {
            throw new \InvalidArgumentException('DATABASE_URL must start with postgresql:// or postgres://.');
        }
        // parse_url() refuses an empty authority (postgresql:///db?host=/socket/dir): parse it
        // with a stand-in host that is dropped again.
        $noHost = (bool) preg_match('#^[a-z]+:///#i', $url);
        $parts = parse_url($noHost ? preg_replace('#^([a-z]+)://#i', '$1://none', $url) : $url);
        if ($parts === false || !isset($parts['scheme'])) {
            throw new \InvalidArgumentException('DATABASE_URL is not a valid URL.');
        }
        $params = [];
        if (!$noHost && isset($parts['host']) && $parts['host'] !== '') {
            // A bracketed IPv6 address; a socket folder may be written percent-encoded.
            $params['host'] = trim(rawurldecode($parts['host']), '[]');
        }
        if (isset($parts['port'])) {
            $params['port'] = (string) $parts['port'];
        }
        if (isset($parts['user']) && $parts['user'] !== '') {
            $params['user'] = rawurldecode($parts['user']);
        }
        if (isset($parts['pass'])) {
            $params['password'] = rawurldecode($parts['pass']);
        }
        $path = isset($parts['path']) ? ltrim($parts['path'], '/') : '';
        if ($path !== '') {
            $params['dbname'] = rawurldecode($path);
        }
        if (isset($parts['query']) && $parts['query'] !== '') {
            foreach (explode('&', $parts['query']) as $pair) {
                if ($pair === '') {
                    continue;
                }
                [$key, $value] = array_pad(explode('=', $pair, 2), 2, '');
                $key = rawurldecode($key);
                if (!preg_match('/^[a-z_]+$/', $key)) {
                    throw new \InvalidArgumentException("DATABASE_URL has a parameter with an invalid name: $key.");
                }
                $params[$key] = rawurldecode(str_replace('+', ' ', $value));
            }
        }
        return new self($params);
    }

    public function database(): string
    {
        return $this->params['dbname'] ?? ($this->params['user'] ?? '');
    }

    public function host(): string
    {
        return $this->params['host'] ?? 'localhost';
    }

    /** @param array<string,string> $extra keywords added unless the URL sets them */
    public function conninfo(array $extra = []): string
    {
        $parts = [];
        foreach ($this->params + $extra as $key => $value) {
            $parts[] = $key . "='" . addcslashes($value, "'\\") . "'";
        }
        return implode(' ', $parts);
    }
}
